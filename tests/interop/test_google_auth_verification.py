"""Hearth ID tokens verified by Google's own library, exactly as a Python backend verifies Firebase tokens."""
import base64
import json

import pytest
from google.auth import exceptions
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token

from conftest import PROJECT


def sign_up(hearth, **body):
    reply = hearth.post("/v1/accounts:signUp", {"returnSecureToken": True, **body})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_google_auth_verifies_a_hearth_id_token(hearth):
    account = sign_up(hearth, email="py@example.com", password="pass-word")
    claims = id_token.verify_token(
        account["idToken"], google_requests.Request(), audience=PROJECT, certs_url=hearth.certs_url
    )
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
    assert claims["sub"] == account["localId"]
    assert claims["user_id"] == account["localId"]
    assert claims["email"] == "py@example.com"
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["exp"] - claims["iat"] == 3600


def test_refreshed_tokens_verify_too(hearth):
    account = sign_up(hearth)
    reply = hearth.post("/v1/token", {"grant_type": "refresh_token", "refresh_token": account["refreshToken"]})
    assert reply.status_code == 200, reply.text
    claims = id_token.verify_token(
        reply.json()["id_token"], google_requests.Request(), audience=PROJECT, certs_url=hearth.certs_url
    )
    assert claims["firebase"]["sign_in_provider"] == "anonymous"


def test_wrong_audience_is_rejected(hearth):
    account = sign_up(hearth)
    with pytest.raises(ValueError):
        id_token.verify_token(
            account["idToken"], google_requests.Request(), audience="another-project", certs_url=hearth.certs_url
        )


def test_tampered_token_is_rejected(hearth):
    account = sign_up(hearth)
    header, payload, signature = account["idToken"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = claims["user_id"] = "someone-else"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    with pytest.raises((ValueError, exceptions.GoogleAuthError)):
        id_token.verify_token(
            f"{header}.{forged}.{signature}", google_requests.Request(), audience=PROJECT, certs_url=hearth.certs_url
        )


def test_public_keys_are_cacheable(hearth):
    import requests

    reply = requests.get(hearth.certs_url, timeout=10)
    assert reply.status_code == 200
    assert "max-age=" in reply.headers["Cache-Control"]
    assert all(pem.startswith("-----BEGIN CERTIFICATE-----") for pem in reply.json().values())
