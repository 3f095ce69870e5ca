"""Two `hearth serve` processes on one PostgreSQL database act as one passkey service: a ceremony started on A
finishes on B, and the same finalize sent to A and B at once signs in exactly once (the challenge is claimed once
in the database). Runs under scripts/with-postgres; skipped without HEARTH_TEST_POSTGRES_URL."""
import os
import threading

import pytest
import requests

from conftest import start
from passkey_authenticator import SoftAuthenticator

POSTGRES = os.environ.get("HEARTH_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not POSTGRES, reason="needs HEARTH_TEST_POSTGRES_URL (scripts/with-postgres)")

PROJECT = "passkeys-race"
ORIGIN = "https://app.example.com"
CONFIG = {"projects": [{"projectId": PROJECT, "emailEnumerationProtection": False,
                        "passkeyConfig": {"rpId": "app.example.com", "expectedOrigins": [ORIGIN]}}]}


@pytest.fixture(scope="module")
def servers():
    a = start(PROJECT, "--database-url", POSTGRES, config=CONFIG)
    b = start(PROJECT, "--database-url", POSTGRES, config=CONFIG)
    try:
        yield next(a), next(b)
    finally:
        for generator in (a, b):
            generator.close()


def post(server, method, body):
    prefix = "/v2/accounts/" if method.startswith("passkey") else "/v1/accounts:"
    return requests.post(f"{server.base}{prefix}{method}", params={"key": "k"}, json=body, timeout=30)


def test_start_on_one_server_finish_on_the_other_and_race_the_finalize(servers):
    a, b = servers
    authenticator = SoftAuthenticator(ORIGIN)
    user = post(a, "signUp", {"email": "race@example.com", "password": "secret-pass-1"}).json()
    options = post(a, "passkeyEnrollment:start", {"idToken": user["idToken"]}).json()["credentialCreationOptions"]
    credential, response = authenticator.create(options)
    enrolled = post(b, "passkeyEnrollment:finalize",
                    {"idToken": user["idToken"], "authenticatorRegistrationResponse": response})
    assert enrolled.status_code == 200, enrolled.text

    for _ in range(10):
        options = post(a, "passkeySignIn:start", {}).json()["credentialRequestOptions"]
        body = {"authenticatorAuthenticationResponse": authenticator.get(options, credential)}
        answers = [None, None]
        barrier = threading.Barrier(2)

        def send(i, server):
            barrier.wait()
            answers[i] = post(server, "passkeySignIn:finalize", body)

        threads = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [200, 400], [r.text for r in answers]
        loser = next(r for r in answers if r.status_code == 400).json()["error"]["message"]
        assert loser == "PASSKEY_CHALLENGE_TIMEOUT"
