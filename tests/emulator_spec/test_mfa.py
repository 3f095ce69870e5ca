"""firebase-tools src/emulator/auth/mfa.spec.ts, translated: phone second factors (enrol, sign in, withdraw)."""
import time
from datetime import datetime

from conftest import (DISPLAY_NAME, IDT, PHOTO_URL, TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2,
                      TEST_PHONE_NUMBER_OBFUSCATED, decode_jwt, expect_error, expect_ok, not_applicable, xfail)

V2 = f"{IDT}/v2/accounts"
MFA_AND_BLOCKING = "mfa + blocking functions: mfaEnrollment routes 404 and blockingFunctions refused (INVALID_CONFIG)"


def v2(api, method, body):
    return api.post(f"{V2}/{method}", body)


def _verified_link_user(api, email="foo@example.com"):
    return api.sign_in_email_link(email)


def test_unverified_email(api):
    id_token = api.register_user("unverified@example.com", "testing")["idToken"]
    expect_error(v2(api, "mfaEnrollment:start", {"idToken": id_token,
                                                 "phoneEnrollmentInfo": {"phoneNumber": TEST_PHONE_NUMBER}}), 400,
                 "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")


def test_phone_enrollment(api):
    id_token = _verified_link_user(api)["idToken"]
    start = expect_ok(v2(api, "mfaEnrollment:start", {"idToken": id_token,
                                                      "phoneEnrollmentInfo": {"phoneNumber": TEST_PHONE_NUMBER}}))
    session = start["phoneSessionInfo"]["sessionInfo"]
    assert isinstance(session, str)
    codes = api.verification_codes()
    assert len(codes) == 1
    assert codes[0]["phoneNumber"] == TEST_PHONE_NUMBER and codes[0]["sessionInfo"] == session
    assert isinstance(codes[0]["code"], str)
    body = expect_ok(v2(api, "mfaEnrollment:finalize", {"idToken": id_token, "phoneVerificationInfo": {
        "code": codes[0]["code"], "sessionInfo": session}}))
    assert isinstance(body.get("idToken"), str) and isinstance(body.get("refreshToken"), str)
    mfa = api.lookup_by_token(id_token).get("mfaInfo") or []
    assert len(mfa) == 1 and mfa[0]["phoneInfo"] == TEST_PHONE_NUMBER
    firebase = decode_jwt(body["idToken"])[1]["firebase"]
    assert firebase.get("sign_in_second_factor") == "phone"
    assert firebase.get("second_factor_identifier") == mfa[0]["mfaEnrollmentId"]


def test_enrollment_info_missing(api):
    id_token = _verified_link_user(api)["idToken"]
    expect_error(v2(api, "mfaEnrollment:start", {"idToken": id_token}), 400, "INVALID_ARGUMENT", contains=True)


def test_enrollment_phone_invalid(api):
    id_token = _verified_link_user(api)["idToken"]
    expect_error(v2(api, "mfaEnrollment:start", {"idToken": id_token,
                                                 "phoneEnrollmentInfo": {"phoneNumber": "notaphonenumber"}}), 400,
                 "INVALID_PHONE_NUMBER", contains=True)


def test_enrollment_phone_duplicate(api):
    id_token = _verified_link_user(api)["idToken"]
    api.enroll_phone_mfa(id_token, TEST_PHONE_NUMBER)
    expect_error(v2(api, "mfaEnrollment:start", {"idToken": id_token,
                                                 "phoneEnrollmentInfo": {"phoneNumber": TEST_PHONE_NUMBER}}), 400,
                 "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")


def test_ineligible_first_factor(api):
    user = api.sign_in_phone(TEST_PHONE_NUMBER)
    api.update_account(user["localId"], email="bob@example.com", emailVerified=True)
    expect_error(v2(api, "mfaEnrollment:start", {"idToken": user["idToken"],
                                                 "phoneEnrollmentInfo": {"phoneNumber": TEST_PHONE_NUMBER_2}}), 400,
                 "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")


def _tenant_call(api, method, tenant):
    t = api.register_tenant(tenant)
    return v2(api, method, {"tenantId": t["tenantId"]})


DISABLED = {"disableAuth": True}
MFA_OFF = {"disableAuth": False, "mfaConfig": {"state": "DISABLED"}}
NO_SMS = {"disableAuth": False, "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PROVIDER_UNSPECIFIED"]}}


def test_enrollment_start_auth_disabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:start", DISABLED), 400, "PROJECT_DISABLED")


def test_enrollment_start_mfa_disabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:start", MFA_OFF), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_enrollment_start_sms_not_enabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:start", NO_SMS), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_enrollment_finalize_auth_disabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:finalize", DISABLED), 400, "PROJECT_DISABLED")


def test_enrollment_finalize_mfa_disabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:finalize", MFA_OFF), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_enrollment_finalize_sms_not_enabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:finalize", NO_SMS), 400, "OPERATION_NOT_ALLOWED", contains=True)


def _mfa_password_user(api, email="foo@example.com", password="abcdef"):
    user = api.register_user(email, password)
    api.update_account(user["localId"], emailVerified=True)
    api.enroll_phone_mfa(user["idToken"], TEST_PHONE_NUMBER)
    return user


def _first_factor(api, email="foo@example.com", password="abcdef"):
    body = expect_ok(api.v1("signInWithPassword", {"email": email, "password": password}))
    assert "idToken" not in body and "refreshToken" not in body
    assert isinstance(body.get("mfaPendingCredential"), str)
    assert isinstance(body.get("mfaInfo"), list) and len(body["mfaInfo"]) == 1
    return body


def _second_factor_start(api, first):
    body = expect_ok(v2(api, "mfaSignIn:start", {"mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                                 "mfaPendingCredential": first["mfaPendingCredential"]}))
    session = body["phoneResponseInfo"]["sessionInfo"]
    assert isinstance(session, str)
    return session, api.verification_codes()[-1]["code"]


def test_sign_in_with_pending_credential(api):
    user = _mfa_password_user(api)
    before = api.lookup_by_local_id(user["localId"])
    time.sleep(0.05)
    first = _first_factor(api)
    factor = first["mfaInfo"][0]
    assert factor.get("phoneInfo") == TEST_PHONE_NUMBER_OBFUSCATED
    assert "unobfuscatedPhoneInfo" not in factor
    after_first = api.lookup_by_local_id(user["localId"])
    assert after_first.get("lastLoginAt") == before.get("lastLoginAt")
    assert after_first.get("lastRefreshAt") == before.get("lastRefreshAt")
    session, code = _second_factor_start(api, first)
    t0 = time.time()
    body = expect_ok(v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                    "phoneVerificationInfo": {"sessionInfo": session, "code": code}}))
    t1 = time.time()
    assert isinstance(body.get("idToken"), str) and isinstance(body.get("refreshToken"), str)
    firebase = decode_jwt(body["idToken"])[1]["firebase"]
    assert firebase.get("sign_in_second_factor") == "phone"
    assert firebase.get("second_factor_identifier") == factor["mfaEnrollmentId"]
    # The spec's fake clock makes these exactly "now"; here they must fall within the finalize call.
    after = api.lookup_by_local_id(user["localId"])
    assert t0 * 1000 - 5 <= int(after["lastLoginAt"]) <= t1 * 1000 + 5
    refreshed = datetime.fromisoformat(after["lastRefreshAt"].replace("Z", "+00:00")).timestamp()
    assert t0 - 1 <= refreshed <= t1 + 1


def test_sign_in_start_auth_disabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:start", DISABLED), 400, "PROJECT_DISABLED")


def test_sign_in_start_mfa_disabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:start", MFA_OFF), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_sign_in_start_sms_not_enabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:start", NO_SMS), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_sign_in_finalize_auth_disabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:finalize", DISABLED), 400, "PROJECT_DISABLED")


def test_sign_in_finalize_mfa_disabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:finalize", MFA_OFF), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_sign_in_finalize_sms_not_enabled(api):
    expect_error(_tenant_call(api, "mfaSignIn:finalize", NO_SMS), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_withdraw(api):
    token1 = _verified_link_user(api)["idToken"]
    id_token = api.enroll_phone_mfa(token1, TEST_PHONE_NUMBER)["idToken"]
    mfa = api.lookup_by_token(id_token).get("mfaInfo") or []
    assert len(mfa) == 1
    body = expect_ok(v2(api, "mfaEnrollment:withdraw", {"idToken": id_token,
                                                        "mfaEnrollmentId": mfa[0]["mfaEnrollmentId"]}))
    assert isinstance(body.get("idToken"), str) and isinstance(body.get("refreshToken"), str)
    firebase = decode_jwt(body["idToken"])[1]["firebase"]
    assert "sign_in_second_factor" not in firebase and "second_factor_identifier" not in firebase
    assert not api.lookup_by_token(id_token).get("mfaInfo")


def test_withdraw_auth_disabled(api):
    expect_error(_tenant_call(api, "mfaEnrollment:withdraw", DISABLED), 400, "PROJECT_DISABLED")


def _blocking_sign_in(api, functions):
    api.update_config({"blockingFunctions": {"triggers": {
        "beforeSignIn": {"functionUri": functions.base + "/beforeSignIn"}}}}, "blockingFunctions")


def test_blocking_second_factor_fields(api, functions):
    _mfa_password_user(api)
    first = _first_factor(api)
    session, code = _second_factor_start(api, first)
    _blocking_sign_in(api, functions)
    functions.reply("/beforeSignIn", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims,sessionClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": True, "customClaims": {"customAttribute": "custom"},
        "sessionClaims": {"sessionAttribute": "session"}}})
    body = expect_ok(v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                    "phoneVerificationInfo": {"sessionInfo": session, "code": code}}))
    assert isinstance(body.get("idToken"), str) and isinstance(body.get("refreshToken"), str)
    payload = decode_jwt(body["idToken"])[1]
    assert payload["firebase"].get("sign_in_second_factor") == "phone"
    assert payload["firebase"].get("second_factor_identifier") == first["mfaInfo"][0]["mfaEnrollmentId"]
    assert payload.get("name") == DISPLAY_NAME and payload.get("picture") == PHOTO_URL
    assert payload.get("email_verified") is True
    assert payload.get("customAttribute") == "custom" and payload.get("sessionAttribute") == "session"
    assert functions.pending() == 0


def test_blocking_second_factor_disables_user(api, functions):
    _mfa_password_user(api)
    first = _first_factor(api)
    session, code = _second_factor_start(api, first)
    _blocking_sign_in(api, functions)
    functions.reply("/beforeSignIn", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    expect_error(v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                "phoneVerificationInfo": {"sessionInfo": session, "code": code}}),
                 400, "USER_DISABLED")
    assert functions.pending() == 0
