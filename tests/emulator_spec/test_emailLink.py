"""firebase-tools src/emulator/auth/emailLink.spec.ts, translated: email-link sign-in."""
from conftest import (DISPLAY_NAME, PHOTO_URL, TEST_MFA_INFO, TEST_PHONE_NUMBER, decode_jwt, expect_error, expect_ok,
                      not_applicable, xfail)


def link_sign_in(api, **body):
    return api.v1("signInWithEmailLink", body)


def test_new_email_creates_account(api):
    email = "alice@example.com"
    api.create_email_signin_oob(email)
    oobs = api.oob_codes()
    assert len(oobs) == 1
    assert oobs[0]["email"] == email and oobs[0]["requestType"] == "EMAIL_SIGNIN"
    body = expect_ok(link_sign_in(api, oobCode=oobs[0]["oobCode"], email=email))
    assert isinstance(body.get("idToken"), str)
    assert body.get("email") == email and body.get("isNewUser") is True
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert isinstance(payload.get("user_id"), str) and "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "password"
    assert api.signin_methods(email) == ["emailLink"]


def test_existing_account_gets_email_link(api):
    user = api.register_user("bob@example.com", "notasecret")
    oob = api.create_email_signin_oob("bob@example.com")
    assert expect_ok(link_sign_in(api, email="bob@example.com", oobCode=oob["oobCode"]))["localId"] == user["localId"]
    users = expect_ok(api.v1("lookup", {"idToken": user["idToken"]}))["users"]
    assert len(users) == 1 and users[0].get("emailLinkSignin") is True
    assert sorted(api.signin_methods("bob@example.com")) == ["emailLink", "password"]


def test_invalid_oob_code(api):
    expect_error(link_sign_in(api, email="alice@example.com", oobCode="invalid"), 400, "INVALID_OOB_CODE")


def test_user_disabled(api):
    user = api.register_user("bob@example.com", "notasecret")
    oob = api.create_email_signin_oob("bob@example.com")
    api.update_account(user["localId"], disableUser=True)
    expect_error(link_sign_in(api, email="bob@example.com", oobCode=oob["oobCode"]), 400, "USER_DISABLED")


def test_email_mismatch(api):
    oob = api.create_email_signin_oob("alice@example.com")
    expect_error(link_sign_in(api, email="NOT-alice@example.com", oobCode=oob["oobCode"]), 400,
                 "INVALID_EMAIL : The email provided does not match the sign-in email address.")


def test_link_account_to_new_email(api):
    user = api.register_user("bob@example.com", "notasecret")
    oob = api.create_email_signin_oob("alice@example.com")
    body = expect_ok(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"], idToken=user["idToken"]))
    assert body["localId"] == user["localId"] and body.get("email") == "alice@example.com"
    assert sorted(api.signin_methods("alice@example.com")) == ["emailLink", "password"]
    assert not api.signin_methods("bob@example.com")


def test_link_phone_account_to_email(api):
    user = api.sign_in_phone(TEST_PHONE_NUMBER)
    oob = api.create_email_signin_oob("alice@example.com")
    body = expect_ok(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"], idToken=user["idToken"]))
    assert body["localId"] == user["localId"] and body.get("email") == "alice@example.com"
    assert api.signin_methods("alice@example.com") == ["emailLink"]


def test_link_email_used_elsewhere(api):
    user = api.sign_in_phone(TEST_PHONE_NUMBER)
    api.register_user("alice@example.com", "notasecret")
    oob = api.create_email_signin_oob("alice@example.com")
    expect_error(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"], idToken=user["idToken"]), 400,
                 "EMAIL_EXISTS")


def test_link_disabled_user(api):
    user = api.register_user("alice@example.com", "notasecret")
    api.update_account(user["localId"], disableUser=True)
    oob = api.create_email_signin_oob("alice@example.com")
    expect_error(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"], idToken=user["idToken"]), 400,
                 "USER_DISABLED")


def _expect_pending(body):
    assert "idToken" not in body and "refreshToken" not in body
    assert isinstance(body.get("mfaPendingCredential"), str)
    assert isinstance(body.get("mfaInfo"), list) and len(body["mfaInfo"]) == 1


def test_mfa_pending_credential(api):
    user = api.register_user("alice@example.com", "notasecret", mfaInfo=[TEST_MFA_INFO])
    oob = api.create_email_signin_oob("alice@example.com")
    _expect_pending(expect_ok(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"],
                                           idToken=user["idToken"])))


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(link_sign_in(api, tenantId=tenant["tenantId"]), 400, "PROJECT_DISABLED", contains=True)


def test_tenant_email_link_disabled(api):
    tenant = api.register_tenant({"disableAuth": False, "enableEmailLinkSignin": False})
    expect_error(link_sign_in(api, tenantId=tenant["tenantId"]), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_tenant_creates_account(api):
    tenant = api.register_tenant({"disableAuth": False, "enableEmailLinkSignin": True})
    t = tenant["tenantId"]
    oob = api.create_email_signin_oob("alice@example.com", t)
    local_id = expect_ok(link_sign_in(api, oobCode=oob["oobCode"], email="alice@example.com", tenantId=t))["localId"]
    assert api.lookup_by_local_id(local_id, t).get("tenantId") == t


def test_tenant_mfa_pending_credential(api):
    tenant = api.register_tenant({"disableAuth": False, "enableEmailLinkSignin": True, "allowPasswordSignup": True,
                                  "mfaConfig": {"state": "ENABLED"}})
    t = tenant["tenantId"]
    user = api.register_user("alice@example.com", "notasecret", mfaInfo=[TEST_MFA_INFO], tenantId=t)
    oob = api.create_email_signin_oob("alice@example.com", t)
    _expect_pending(expect_ok(link_sign_in(api, email="alice@example.com", oobCode=oob["oobCode"],
                                           idToken=user["idToken"], tenantId=t)))


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
NOT_TESTED = {"userRecord": {"updateMask": "displayName", "displayName": "Not tested"}}


def _new_link_sign_in(api, email="alice@example.com"):
    api.create_email_signin_oob(email)
    oobs = api.oob_codes()
    return link_sign_in(api, oobCode=oobs[0]["oobCode"], email=email)


def _check_fields(body, email, session, new=True):
    assert isinstance(body.get("idToken"), str)
    assert body.get("email") == email and body.get("isNewUser") is new
    payload = decode_jwt(body["idToken"])[1]
    assert payload.get("name") == DISPLAY_NAME and payload.get("picture") == PHOTO_URL
    assert payload.get("email_verified") is True
    assert payload.get("customAttribute") == "custom"
    if session:
        assert payload.get("sessionAttribute") == "session"


def _event_jwt(functions, path):
    bodies = [b for p, b in functions.calls if p == path]
    assert bodies, f"no call to {path}"
    return decode_jwt(bodies[-1]["data"]["jwt"])[1]


def test_blocking_create_fields(api, functions):
    _blocking(api, functions, "beforeCreate")
    functions.reply("/beforeCreate", 200, CREATE_REPLY)
    _check_fields(expect_ok(_new_link_sign_in(api)), "alice@example.com", False)


def _check_event(jwt, email, verified=True):
    assert jwt.get("sign_in_method") == "emailLink"
    record = jwt["user_record"]
    assert isinstance(record.get("uid"), str)
    assert record.get("email") == email
    assert record.get("email_verified") is verified
    assert isinstance(record.get("metadata", {}).get("creation_time"), (int, float))
    return record


def test_blocking_create_event_body(api, functions):
    _blocking(api, functions, "beforeCreate")
    functions.reply("/beforeCreate", 200, NOT_TESTED)
    expect_ok(_new_link_sign_in(api))
    _check_event(_event_jwt(functions, "/beforeCreate"), "alice@example.com")


def test_blocking_sign_in_event_body(api, functions):
    _blocking(api, functions, "beforeSignIn")
    functions.reply("/beforeSignIn", 200, NOT_TESTED)
    expect_ok(_new_link_sign_in(api))
    _check_event(_event_jwt(functions, "/beforeSignIn"), "alice@example.com")


def test_blocking_sign_in_event_has_create_fields(api, functions):
    _blocking(api, functions, "beforeCreate", "beforeSignIn")
    functions.reply("/beforeCreate", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": False, "customClaims": {"customAttribute": "custom"}}})
    functions.reply("/beforeSignIn", 200, NOT_TESTED)
    expect_ok(_new_link_sign_in(api))
    record = _check_event(_event_jwt(functions, "/beforeSignIn"), "alice@example.com", verified=False)
    assert record.get("display_name") == DISPLAY_NAME and record.get("photo_url") == PHOTO_URL
    assert record.get("custom_claims") == {"customAttribute": "custom"}


def test_blocking_sign_in_fields(api, functions):
    _blocking(api, functions, "beforeSignIn")
    functions.reply("/beforeSignIn", 200, SIGN_IN_REPLY)
    _check_fields(expect_ok(_new_link_sign_in(api)), "alice@example.com", True)


def test_blocking_sign_in_overrides_create(api, functions):
    _blocking(api, functions, "beforeCreate", "beforeSignIn")
    functions.reply("/beforeCreate", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims", "displayName": "oldDisplayName",
        "photoUrl": "oldPhotoUrl", "emailVerified": False, "customClaims": {"customAttribute": "oldCustom"}}})
    functions.reply("/beforeSignIn", 200, SIGN_IN_REPLY)
    _check_fields(expect_ok(_new_link_sign_in(api)), "alice@example.com", True)


def test_blocking_existing_account(api, functions):
    user = api.register_user("bob@example.com", "notasecret")
    oob = api.create_email_signin_oob("bob@example.com")
    _blocking(api, functions, "beforeSignIn")
    functions.reply("/beforeSignIn", 200, SIGN_IN_REPLY)
    body = expect_ok(link_sign_in(api, email="bob@example.com", oobCode=oob["oobCode"]))
    assert body["localId"] == user["localId"]
    _check_fields(body, "bob@example.com", True, new=False)


def test_blocking_disables_user(api, functions):
    _blocking(api, functions, "beforeCreate")
    functions.reply("/beforeCreate", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    expect_error(_new_link_sign_in(api), 400, "USER_DISABLED")
