"""Blocking functions written with Firebase's own Python functions SDK (PyPI firebase-functions,
`identity_fn.before_user_created` / `before_user_signed_in`) run unmodified against a production `hearth serve`:
the SDK verifies Hearth's event JWT (signature against Hearth's published keys, issuer, audience, expiry) and
parses every claim it reads; Hearth applies its answers. The host and how it points the SDK at Hearth:
blocking_functions_host.py."""
import base64
import json
import os
import subprocess
import sys

import pytest
import requests
from google.auth.transport import requests as google_requests
from google.oauth2 import service_account

from conftest import free_port, start

PROJECT = "functions-test"


@pytest.fixture(scope="module")
def hearth():
    port = free_port()
    config = {"projects": [{"projectId": PROJECT, "apiKeys": ["k"], "emailEnumerationProtection": False}]}
    yield from start(PROJECT, config=config, port=port)


@pytest.fixture(scope="module")
def functions(hearth):
    proc = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__), "blocking_functions_host.py"), "--project", PROJECT,
         "--certs", hearth.certs_url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()
    assert line and line[0] == "READY", "the functions host did not start (pip install -r tests/interop/requirements.txt)"
    base = f"http://127.0.0.1:{line[1]}"
    creds = service_account.Credentials.from_service_account_file(
        hearth.service_account("functions"), scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google_requests.Request())
    registered = requests.patch(
        f"{hearth.base}/v2/projects/{PROJECT}/config", params={"updateMask": "blockingFunctions"},
        headers={"Authorization": f"Bearer {creds.token}"}, timeout=10,
        json={"blockingFunctions": {"triggers": {
            "beforeCreate": {"functionUri": f"{base}/fn.run.app/beforeCreate"},
            "beforeSignIn": {"functionUri": f"{base}/fn.run.app/beforeSignIn"}}}})
    assert registered.ok, registered.text
    try:
        yield base
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def post(hearth, method, body, **headers):
    return requests.post(f"{hearth.base}/v1/accounts:{method}", params={"key": "k"}, json=body, headers=headers,
                         timeout=30)


def test_python_sdk_functions_shape_a_sign_up_and_its_session(hearth, functions):
    made = post(hearth, "signUp", {"email": "ada@example.com", "password": "secret-1", "returnSecureToken": True},
                **{"User-Agent": "interop-test/1.0", "X-Firebase-Locale": "fr"})
    assert made.status_code == 200, made.text
    token = claims(made.json()["idToken"])
    assert token["role"] == "member", "custom_claims from before_user_created"
    assert token["signed_in_by"] == "python", "session_claims from before_user_signed_in"
    looked_up = post(hearth, "lookup", {"idToken": made.json()["idToken"]}).json()["users"][0]
    assert looked_up["displayName"] == "Named in Python"
    assert looked_up["photoUrl"] == "https://img.example/py.png", "the Python SDK's photoURL spelling"

    events = requests.get(f"{functions}/events", timeout=10).json()
    assert [e["event_type"] for e in events] == [
        "providers/cloud.auth/eventTypes/user.beforeCreate", "providers/cloud.auth/eventTypes/user.beforeSignIn"]
    for event in events:
        assert event["user_agent"] == "interop-test/1.0" and event["locale"] == "fr"
        assert event["ip_address"] == "127.0.0.1" and event["event_id"]
        assert event["provider_id"] == "password" and event["email"] == "ada@example.com"
        assert event["tokens_valid_after_time"]
    assert events[0]["is_new_user"] and not events[1]["is_new_user"]
    assert "password" in events[1]["providers"]

    signed_in = post(hearth, "signInWithPassword", {"email": "ada@example.com", "password": "secret-1",
                                                    "returnSecureToken": True})
    assert signed_in.status_code == 200 and claims(signed_in.json()["idToken"])["signed_in_by"] == "python"


def test_a_python_sdk_refusal_reaches_the_client_and_nothing_is_stored(hearth, functions):
    refused = post(hearth, "signUp", {"email": "eve@blocked.example", "password": "secret-1"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("BLOCKING_FUNCTION_ERROR_RESPONSE")
    assert "Blocked by policy" in refused.json()["error"]["message"]
    assert post(hearth, "signInWithPassword", {"email": "eve@blocked.example", "password": "secret-1"}).status_code == 400


def test_an_event_signed_by_anyone_else_fails_the_sdks_verification(hearth, functions):
    """The SDK really verifies: an event with every claim right, naming a kid Hearth publishes, but signed by
    another key, is refused by the function itself and never reaches the function's code."""
    import time

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from google.auth import crypt
    from google.auth import jwt as google_jwt

    kid = next(iter(requests.get(hearth.certs_url, timeout=10).json()))
    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    now = int(time.time())
    forged = google_jwt.encode(crypt.RSASigner.from_string(pem, key_id=kid), {
        "iss": f"https://securetoken.google.com/{PROJECT}", "aud": f"{functions}/fn.run.app/beforeSignIn",
        "iat": now, "exp": now + 600, "sub": "someone", "event_id": "x", "event_type": "beforeSignIn",
        "ip_address": "127.0.0.1", "user_agent": "forger", "sign_in_method": "password",
        "user_record": {"uid": "someone", "provider_data": [], "metadata": {"creation_time": now * 1000}},
    }).decode()
    before = len(requests.get(f"{functions}/events", timeout=10).json())
    answer = requests.post(f"{functions}/fn.run.app/beforeSignIn", json={"data": {"jwt": forged}}, timeout=10)
    assert answer.status_code >= 400, answer.text
    assert len(requests.get(f"{functions}/events", timeout=10).json()) == before
