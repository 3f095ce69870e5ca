"""firebase-tools src/emulator/auth/password.spec.ts, translated: accounts:signInWithPassword."""
import time

from conftest import DISPLAY_NAME, PHOTO_URL, TEST_MFA_INFO, decode_jwt, expect_error, expect_ok, not_applicable, xfail

ALICE = ("alice@example.com", "notasecret")


def signin(api, **body):
    return api.v1("signInWithPassword", body)


def test_issues_tokens(api):
    local_id = api.register_user(*ALICE)["localId"]
    body = expect_ok(signin(api, email=ALICE[0], password=ALICE[1]))
    assert body["localId"] == local_id and body["email"] == ALICE[0]
    assert body.get("registered") is True
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert payload["user_id"] == local_id
    assert "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "password"


def test_updates_last_login_at(api):
    # The spec moves a fake clock; here real time passes and lastLoginAt must be the sign-in's time.
    local_id = api.register_user(*ALICE)["localId"]
    before = int(api.lookup_by_local_id(local_id)["lastLoginAt"])
    time.sleep(0.05)
    t0 = int(time.time() * 1000)
    expect_ok(signin(api, email=ALICE[0], password=ALICE[1]))
    t1 = int(time.time() * 1000)
    after = int(api.lookup_by_local_id(local_id)["lastLoginAt"])
    assert after > before
    assert t0 - 5 <= after <= t1 + 5


def test_email_ignores_case(api):
    local_id = api.register_user(*ALICE)["localId"]
    assert expect_ok(signin(api, email="AlIcE@exAMPle.COM", password=ALICE[1]))["localId"] == local_id


def test_missing_email_or_password(api):
    expect_error(signin(api, password="notasecret"), 400, "MISSING_EMAIL")
    expect_error(signin(api, email="nosuchuser@example.com"), 400, "MISSING_PASSWORD")


def test_invalid_email(api):
    expect_error(signin(api, email="ill-formatted-email", password="notasecret"), 400, "INVALID_EMAIL")
    expect_error(signin(api, email="", password="notasecret"), 400, "INVALID_EMAIL")


def test_email_not_found(api):
    expect_error(signin(api, email="nosuchuser@example.com", password="notasecret"), 400, "EMAIL_NOT_FOUND")


def test_email_not_found_with_privacy(api):
    api.update_config({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    expect_error(signin(api, email="nosuchuser@example.com", password="notasecret"), 400,
                 "INVALID_LOGIN_CREDENTIALS")


def test_wrong_password(api):
    api.register_user(*ALICE)
    expect_error(signin(api, email=ALICE[0], password="NOTASECRET"), 400, "INVALID_PASSWORD")


def test_wrong_password_with_privacy(api):
    api.update_config({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    api.register_user(*ALICE)
    expect_error(signin(api, email=ALICE[0], password="NOTASECRET"), 400, "INVALID_LOGIN_CREDENTIALS")


def test_user_disabled(api):
    local_id = api.register_user(*ALICE)["localId"]
    api.update_account(local_id, disableUser=True)
    expect_error(signin(api, email=ALICE[0], password=ALICE[1]), 400, "USER_DISABLED")


def _expect_pending(body):
    assert "idToken" not in body and "refreshToken" not in body
    assert isinstance(body.get("mfaPendingCredential"), str)
    assert isinstance(body.get("mfaInfo"), list) and len(body["mfaInfo"]) == 1


def test_mfa_pending_credential(api):
    api.register_user(*ALICE, mfaInfo=[TEST_MFA_INFO])
    _expect_pending(expect_ok(signin(api, email=ALICE[0], password=ALICE[1])))


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(signin(api, tenantId=tenant["tenantId"]), 400, "PROJECT_DISABLED", contains=True)


def test_tenant_password_disabled(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": False})
    expect_error(signin(api, tenantId=tenant["tenantId"]), 400, "PASSWORD_LOGIN_DISABLED", contains=True)


def test_tenant_mfa_pending_credential(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": True, "mfaConfig": {"state": "ENABLED"}})
    api.register_user(*ALICE, mfaInfo=[TEST_MFA_INFO], tenantId=tenant["tenantId"])
    _expect_pending(expect_ok(signin(api, tenantId=tenant["tenantId"], email=ALICE[0], password=ALICE[1])))


def _before_sign_in(api, functions):
    api.update_config({"blockingFunctions": {"triggers": {
        "beforeSignIn": {"functionUri": functions.base + "/beforeSignIn"}}}}, "blockingFunctions")


def test_blocking_updates_fields(api, functions):
    local_id = api.register_user(*ALICE)["localId"]
    _before_sign_in(api, functions)
    functions.reply("/beforeSignIn", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims,sessionClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": True, "customClaims": {"customAttribute": "custom"},
        "sessionClaims": {"sessionAttribute": "session"}}})
    body = expect_ok(signin(api, email=ALICE[0], password=ALICE[1]))
    assert body["localId"] == local_id and body["email"] == ALICE[0] and body.get("registered") is True
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert payload.get("name") == DISPLAY_NAME and payload.get("picture") == PHOTO_URL
    assert payload.get("email_verified") is True
    assert payload.get("customAttribute") == "custom" and payload.get("sessionAttribute") == "session"
    assert functions.pending() == 0


def test_blocking_disables_user(api, functions):
    api.register_user(*ALICE)
    _before_sign_in(api, functions)
    functions.reply("/beforeSignIn", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    expect_error(signin(api, email=ALICE[0], password=ALICE[1]), 400, "USER_DISABLED")
    assert functions.pending() == 0


def test_blocking_not_triggered_for_mfa_user(api, functions):
    api.register_user(*ALICE, mfaInfo=[TEST_MFA_INFO])
    _before_sign_in(api, functions)
    functions.reply("/beforeSignIn", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    _expect_pending(expect_ok(signin(api, email=ALICE[0], password=ALICE[1])))
    assert functions.calls == []
