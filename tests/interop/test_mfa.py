"""Multi-factor authentication against Hearth with independent parts: pyotp computes the TOTP codes, and the
official firebase-admin SDK reads the users (the Python SDK has no MFA fields yet, so the raw `mfaInfo` is checked)."""
import base64
import json
import os
import time

import firebase_admin
import pyotp
import pytest
import requests
from firebase_admin import auth

OWNER = {"Authorization": "Bearer owner"}


def v2(hearth, method, body):
    reply = requests.post(f"{hearth.base}/identitytoolkit.googleapis.com/v2/accounts/{method}",
                          params={"key": "any"}, json=body, timeout=10)
    return reply.status_code, reply.json()


def sign_in(hearth, email, password):
    reply = requests.post(f"{hearth.base}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                          params={"key": "any"}, json={"email": email, "password": password,
                                                       "returnSecureToken": True}, timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json()


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.fixture(scope="module")
def admin(hearth_emulator):
    # Turn second factors on for the project, as an admin does through the config API.
    reply = requests.patch(
        f"{hearth_emulator.base}/v2/projects/{hearth_emulator.project}/config",
        params={"updateMask": "mfa"}, headers=OWNER, timeout=10,
        json={"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                      "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}})
    assert reply.status_code == 200, reply.text
    assert reply.json()["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 1
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = hearth_emulator.host
    app = firebase_admin.initialize_app(options={"projectId": hearth_emulator.project}, name="hearth-mfa")
    try:
        yield app
    finally:
        firebase_admin.delete_app(app)
        if previous is None:
            del os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
        else:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous


def test_totp_enrollment_and_sign_in_with_pyotp_codes(hearth_emulator, admin):
    user = auth.create_user(email="totp@example.com", password="first factor", email_verified=True, app=admin)
    id_token = sign_in(hearth_emulator, "totp@example.com", "first factor")["idToken"]

    status, started = v2(hearth_emulator, "mfaEnrollment:start", {"idToken": id_token, "totpEnrollmentInfo": {}})
    assert status == 200, started
    info = started["totpSessionInfo"]
    assert (info["verificationCodeLength"], info["hashingAlgorithm"], info["periodSec"]) == (6, "SHA1", 30)
    totp = pyotp.TOTP(info["sharedSecretKey"])
    uri = totp.provisioning_uri(name="totp@example.com", issuer_name="Hearth")
    assert pyotp.parse_uri(uri).secret == info["sharedSecretKey"]

    # One instant fixes both codes, so a 30-second boundary crossed mid-test cannot turn the replay into a fresh code.
    enrolled_at = time.time()
    enrollment_code = totp.at(enrolled_at)
    status, enrolled = v2(hearth_emulator, "mfaEnrollment:finalize", {
        "idToken": id_token, "displayName": "authenticator",
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": enrollment_code}})
    assert status == 200, enrolled
    assert claims(enrolled["idToken"])["firebase"]["sign_in_second_factor"] == "totp"

    # The Admin SDK sees the factor in the raw user (no secret in it).
    record = auth.get_user(user.uid, app=admin)
    factor = record._data["mfaInfo"][0]
    assert factor["displayName"] == "authenticator" and factor["totpInfo"] == {}
    assert "sharedSecretKey" not in json.dumps(record._data)

    challenge = sign_in(hearth_emulator, "totp@example.com", "first factor")
    assert "idToken" not in challenge
    pending = challenge["mfaPendingCredential"]
    assert challenge["mfaInfo"][0]["mfaEnrollmentId"] == factor["mfaEnrollmentId"]

    def finalize(code):
        return v2(hearth_emulator, "mfaSignIn:finalize", {
            "mfaPendingCredential": pending, "mfaEnrollmentId": factor["mfaEnrollmentId"],
            "totpVerificationInfo": {"verificationCode": code}})

    # The enrollment's code was used; pyotp's code for the next period is inside the window.
    status, replay = finalize(enrollment_code)
    assert status == 400 and replay["error"]["message"].startswith("INVALID_CODE")
    status, done = finalize(totp.at(enrolled_at + 30))
    assert status == 200, done
    token = claims(done["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "totp"
    assert token["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"]
    assert token["firebase"]["sign_in_provider"] == "password"


def test_phone_factors_set_by_admins_challenge_sign_in(hearth_emulator, admin):
    user = auth.create_user(email="phone@example.com", password="first factor", email_verified=True, app=admin)
    reply = requests.post(
        f"{hearth_emulator.base}/identitytoolkit.googleapis.com/v1/projects/{hearth_emulator.project}/accounts:update",
        headers=OWNER, timeout=10, json={"localId": user.uid, "mfa": {"enrollments": [
            {"mfaEnrollmentId": "desk-phone", "phoneInfo": "+16505550123", "displayName": "desk",
             "enrolledAt": "2024-05-01T10:00:00Z"}]}})
    assert reply.status_code == 200, reply.text
    factor = auth.get_user(user.uid, app=admin)._data["mfaInfo"][0]
    assert factor["phoneInfo"] == "+16505550123" and factor["mfaEnrollmentId"] == "desk-phone"
    assert factor["enrolledAt"].startswith("2024-05-01T10:00:00")

    challenge = sign_in(hearth_emulator, "phone@example.com", "first factor")
    assert challenge["mfaInfo"][0]["phoneInfo"] == "+*******0123"
    status, started = v2(hearth_emulator, "mfaSignIn:start", {
        "mfaPendingCredential": challenge["mfaPendingCredential"], "mfaEnrollmentId": "desk-phone",
        "phoneSignInInfo": {}})
    assert status == 200, started
    codes = requests.get(f"{hearth_emulator.base}/emulator/v1/projects/{hearth_emulator.project}/verificationCodes",
                         timeout=10).json()["verificationCodes"]
    code = [c for c in codes if c["phoneNumber"] == "+16505550123"][-1]["code"]
    status, done = v2(hearth_emulator, "mfaSignIn:finalize", {
        "mfaPendingCredential": challenge["mfaPendingCredential"],
        "phoneVerificationInfo": {"sessionInfo": started["phoneResponseInfo"]["sessionInfo"], "code": code}})
    assert status == 200, done
    assert claims(done["idToken"])["firebase"]["second_factor_identifier"] == "desk-phone"
