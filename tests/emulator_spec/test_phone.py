"""firebase-tools src/emulator/auth/phone.spec.ts, translated: phone sign-in."""
from conftest import (DISPLAY_NAME, PHOTO_URL, TEST_MFA_INFO, TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2, decode_jwt,
                      expect_error, expect_ok, not_applicable, xfail)

FIRST_FACTOR = "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."


def send_code(api, phone=TEST_PHONE_NUMBER) -> str:
    body = expect_ok(api.v1("sendVerificationCode", {"phoneNumber": phone, "recaptchaToken": "ignored"}))
    return body["sessionInfo"]


def code_for(api, session):
    codes = [c for c in api.verification_codes() if c.get("sessionInfo") == session]
    return codes[0]["code"]


def sign_in(api, **body):
    return api.v1("signInWithPhoneNumber", body)


def test_recaptcha_params(api):
    body = expect_ok(api.get("/identitytoolkit.googleapis.com/v1/recaptchaParams"))
    assert isinstance(body.get("recaptchaStoken"), str)
    assert isinstance(body.get("recaptchaSiteKey"), str)


def test_pretends_to_send_sms(api):
    session = send_code(api)
    codes = api.verification_codes()
    assert len(codes) == 1
    assert codes[0]["phoneNumber"] == TEST_PHONE_NUMBER
    assert codes[0]["sessionInfo"] == session
    assert isinstance(codes[0]["code"], str)


def test_send_missing_phone(api):
    expect_error(api.v1("sendVerificationCode", {"recaptchaToken": "ignored"}), 400,
                 "INVALID_PHONE_NUMBER : Invalid format.")


def test_send_invalid_phone(api):
    expect_error(api.v1("sendVerificationCode", {"recaptchaToken": "ignored", "phoneNumber": "invalid"}), 400,
                 "INVALID_PHONE_NUMBER : Invalid format.")


def test_send_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(api.v1("sendVerificationCode", {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED")


def test_send_tenant_unsupported(api):
    tenant = api.register_tenant({"disableAuth": False})
    expect_error(api.v1("sendVerificationCode", {"tenantId": tenant["tenantId"]}), 400,
                 "UNSUPPORTED_TENANT_OPERATION")


def test_new_account_by_phone(api):
    session = send_code(api)
    body = expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session)))
    assert body.get("isNewUser") is True
    assert body.get("phoneNumber") == TEST_PHONE_NUMBER
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert isinstance(payload.get("user_id"), str)
    assert payload.get("phone_number") == TEST_PHONE_NUMBER
    assert "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "phone"
    assert payload["firebase"]["identities"] == {"phone": [TEST_PHONE_NUMBER]}


def test_missing_session_or_code(api):
    expect_error(sign_in(api, code="123456"), 400, "MISSING_SESSION_INFO")
    expect_error(sign_in(api, sessionInfo="something-something"), 400, "MISSING_CODE")


def test_invalid_session_or_code(api):
    session = send_code(api)
    code = code_for(api, session)
    expect_error(sign_in(api, sessionInfo="totally-invalid", code=code), 400, "INVALID_SESSION_INFO")
    expect_error(sign_in(api, sessionInfo=session, code=code + "1"), 400, "INVALID_CODE")


def test_user_disabled(api):
    local_id = api.sign_in_phone(TEST_PHONE_NUMBER)["localId"]
    api.update_account(local_id, disableUser=True)
    session = send_code(api)
    expect_error(sign_in(api, sessionInfo=session, code=code_for(api, session)), 400, "USER_DISABLED")


def test_link_to_existing_account(api):
    anon = api.register_anon()
    session = send_code(api)
    body = expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session), idToken=anon["idToken"]))
    assert body.get("isNewUser") is False
    assert body.get("phoneNumber") == TEST_PHONE_NUMBER
    assert body["localId"] == anon["localId"]


def test_link_to_disabled_account(api):
    anon = api.register_anon()
    api.update_account(anon["localId"], disableUser=True)
    session = send_code(api)
    expect_error(sign_in(api, sessionInfo=session, code=code_for(api, session), idToken=anon["idToken"]), 400,
                 "USER_DISABLED")


def test_link_to_mfa_user(api):
    id_token = api.register_user("alice@example.com", "notasecret", mfaInfo=[TEST_MFA_INFO])["idToken"]
    session = send_code(api)
    expect_error(sign_in(api, sessionInfo=session, code=code_for(api, session), idToken=id_token), 400,
                 FIRST_FACTOR)


def test_send_to_mfa_user(api):
    user = api.register_user("alice@example.com", "notasecret")
    api.update_account(user["localId"], emailVerified=True, phoneNumber=TEST_PHONE_NUMBER)
    api.enroll_phone_mfa(user["idToken"], TEST_PHONE_NUMBER_2)
    expect_error(api.v1("sendVerificationCode", {"phoneNumber": TEST_PHONE_NUMBER}), 400, FIRST_FACTOR)
    # As in the spec: no code listed, the enrolment's own code having been used.
    assert api.verification_codes() == []


def test_temporary_proof_for_taken_number(api):
    api.sign_in_phone(TEST_PHONE_NUMBER)
    id_token = api.register_anon()["idToken"]
    session = send_code(api)
    body = expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session), idToken=id_token))
    assert "idToken" not in body
    assert body.get("phoneNumber") == TEST_PHONE_NUMBER
    assert isinstance(body.get("temporaryProof"), str)
    expect_error(sign_in(api, idToken=id_token, phoneNumber=TEST_PHONE_NUMBER, temporaryProof=body["temporaryProof"]),
                 400, "PHONE_NUMBER_EXISTS")


def test_sign_in_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(sign_in(api, tenantId=tenant["tenantId"]), 400, "PROJECT_DISABLED")


def test_sign_in_tenant_unsupported(api):
    tenant = api.register_tenant({"disableAuth": False})
    expect_error(sign_in(api, tenantId=tenant["tenantId"]), 400, "UNSUPPORTED_TENANT_OPERATION")


# --- blocking functions ---

def _blocking(api, functions, *names):
    api.update_config({"blockingFunctions": {"triggers": {
        n: {"functionUri": functions.base + "/" + n} for n in names}}}, "blockingFunctions")


CREATE_REPLY = {"userRecord": {"updateMask": "displayName,photoUrl,emailVerified,customClaims",
                               "displayName": DISPLAY_NAME, "photoUrl": PHOTO_URL, "emailVerified": True,
                               "customClaims": {"customAttribute": "custom"}}}
SIGN_IN_REPLY = {"userRecord": {"updateMask": "displayName,photoUrl,emailVerified,customClaims,sessionClaims",
                                "displayName": DISPLAY_NAME, "photoUrl": PHOTO_URL, "emailVerified": True,
                                "customClaims": {"customAttribute": "custom"},
                                "sessionClaims": {"sessionAttribute": "session"}}}


def _check(body, session_claims):
    assert body.get("isNewUser") is True
    assert body.get("phoneNumber") == TEST_PHONE_NUMBER
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert payload.get("name") == DISPLAY_NAME and payload.get("picture") == PHOTO_URL
    assert payload.get("email_verified") is True
    assert payload.get("customAttribute") == "custom"
    if session_claims:
        assert payload.get("sessionAttribute") == "session"


def test_blocking_new_user(api, functions):
    _blocking(api, functions, "beforeCreate")
    functions.reply("/beforeCreate", 200, CREATE_REPLY)
    session = send_code(api)
    _check(expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session))), False)
    assert functions.pending() == 0


def test_blocking_before_sign_in(api, functions):
    _blocking(api, functions, "beforeSignIn")
    functions.reply("/beforeSignIn", 200, SIGN_IN_REPLY)
    session = send_code(api)
    _check(expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session))), True)
    assert functions.pending() == 0


def test_blocking_sign_in_overrides_create(api, functions):
    _blocking(api, functions, "beforeCreate", "beforeSignIn")
    functions.reply("/beforeCreate", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims", "displayName": "oldDisplayName",
        "photoUrl": "oldPhotoUrl", "emailVerified": False, "customClaims": {"customAttribute": "oldCustom"}}})
    functions.reply("/beforeSignIn", 200, SIGN_IN_REPLY)
    session = send_code(api)
    _check(expect_ok(sign_in(api, sessionInfo=session, code=code_for(api, session))), True)
    assert functions.pending() == 0


def test_blocking_disables_user(api, functions):
    _blocking(api, functions, "beforeCreate")
    functions.reply("/beforeCreate", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    session = send_code(api)
    expect_error(sign_in(api, sessionInfo=session, code=code_for(api, session)), 400, "USER_DISABLED")
    assert functions.pending() == 0
