"""Admin authentication outside emulator mode: Google's own auth library performs the JWT-bearer grant
(RFC 7523) with a Hearth service-account file, and firebase-admin signs custom tokens with it offline.

Requests go out with the token set by hand rather than through google-auth's AuthorizedSession, which for
Google's universe would also look up "regional access boundaries" at iamcredentials.googleapis.com: no test
sends traffic beyond loopback."""
import pytest
import requests
from google.auth import exceptions
from google.auth import jwt as google_jwt
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token, service_account

from conftest import PROJECT
from test_firebase_admin import offline_custom_token

SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/identitytoolkit"]


def bearer(creds):
    token = creds.token.decode() if isinstance(creds.token, bytes) else creds.token  # jwt.Credentials holds bytes
    return {"Authorization": f"Bearer {token}"}


def test_google_auth_obtains_an_access_token_that_admin_routes_accept(hearth):
    path = hearth.service_account("backend")
    creds = service_account.Credentials.from_service_account_file(path, scopes=SCOPES)
    creds.refresh(google_requests.Request())  # the JWT-bearer grant at the file's token_uri
    assert creds.token and creds.expiry
    created = requests.post(f"{hearth.base}/v1/projects/{PROJECT}/accounts", json={"email": "sa@example.com"},
                            headers=bearer(creds), timeout=10)
    assert created.status_code == 200, created.text
    # Read back by its id: a page of batchGet (ordered by random localIds) need not hold it.
    looked_up = requests.post(f"{hearth.base}/v1/projects/{PROJECT}/accounts:lookup",
                              json={"localId": [created.json()["localId"]]}, headers=bearer(creds), timeout=10)
    assert looked_up.status_code == 200, looked_up.text
    assert [u.get("email") for u in looked_up.json()["users"]] == ["sa@example.com"]


def test_a_self_signed_jwt_for_identity_toolkit_is_accepted_as_jwt_access(hearth):
    path = hearth.service_account("jwt-access")
    # google-auth's JWT access for the Identity Toolkit API: the service's root URL as audience.
    creds = google_jwt.Credentials.from_service_account_file(path, audience="https://identitytoolkit.googleapis.com/")
    creds.refresh(google_requests.Request())  # signs locally; no token endpoint
    listed = requests.get(f"{hearth.base}/v1/projects/{PROJECT}/accounts:batchGet", headers=bearer(creds), timeout=10)
    assert listed.status_code == 200, listed.text


def test_missing_and_emulator_credentials_are_refused(hearth):
    url = f"{hearth.base}/v1/projects/{PROJECT}/accounts:batchGet"
    assert requests.get(url, timeout=10).status_code == 401
    assert requests.get(url, headers={"Authorization": "Bearer owner"}, timeout=10).status_code == 401


def test_revoking_the_key_ends_its_access(hearth):
    path = hearth.service_account("short-lived")
    creds = service_account.Credentials.from_service_account_file(path, scopes=SCOPES)
    creds.refresh(google_requests.Request())
    url = f"{hearth.base}/v1/projects/{PROJECT}/accounts:batchGet"
    assert requests.get(url, headers=bearer(creds), timeout=10).status_code == 200
    hearth.cli("service-accounts", "revoke", creds.signer.key_id)
    assert requests.get(url, headers=bearer(creds), timeout=10).status_code == 401
    with pytest.raises(exceptions.RefreshError, match="invalid_grant"):
        creds.refresh(google_requests.Request())


def test_an_offline_custom_token_signs_in_and_its_id_token_verifies(hearth):
    token = offline_custom_token(hearth.service_account("minter"), "naver:99")
    reply = hearth.post("/v1/accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert reply.status_code == 200, reply.text
    claims = id_token.verify_token(reply.json()["idToken"], google_requests.Request(), audience=PROJECT,
                                   certs_url=hearth.certs_url)
    assert claims["sub"] == "naver:99"
    assert claims["firebase"]["sign_in_provider"] == "custom"
