"""firebase-tools src/emulator/auth/signUp.spec.ts, translated: accounts:signUp."""
import pytest

from conftest import (xfail, not_applicable, DISPLAY_NAME, PHOTO_URL, TEST_INVALID_PHONE_NUMBER, TEST_MFA_INFO,
                      TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2, decode_jwt, expect_error, expect_ok)


def test_no_email(api):
    expect_error(api.v1("signUp", {"password": "notasecret"}), 400, "MISSING_EMAIL")


def test_empty_email_and_password(api):
    expect_error(api.v1("signUp", {"email": "", "password": ""}), 400, "INVALID_EMAIL")


def test_anon_signup_issues_tokens(api):
    body = expect_ok(api.v1("signUp", {"returnSecureToken": True}))
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert isinstance(payload.get("user_id"), str)
    assert payload.get("provider_id") == "anonymous"
    assert payload["firebase"]["sign_in_provider"] == "anonymous"


def test_password_signup_issues_tokens(api):
    email = "me@example.com"
    body = expect_ok(api.v1("signUp", {"email": email, "password": "notasecret"}))
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert isinstance(payload.get("user_id"), str)
    assert "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "password"
    assert payload["firebase"]["identities"] == {"email": [email]}


def test_anon_ignores_display_name_and_photo(api):
    body = expect_ok(api.v1("signUp", {"displayName": "Me", "photoUrl": "http://localhost/my-profile.png"}))
    assert "displayName" not in body and "photoUrl" not in body
    info = api.lookup_by_token(body["idToken"])
    assert "displayName" not in info and "photoUrl" not in info


def test_password_sets_display_name_ignores_photo(api):
    body = expect_ok(api.v1("signUp", {"email": "me@example.com", "password": "notasecret", "displayName": "Me",
                                       "photoUrl": "http://localhost/my-profile.png"}))
    assert body.get("displayName") == "Me"
    assert "photoUrl" not in body
    info = api.lookup_by_token(body["idToken"])
    assert info.get("displayName") == "Me"
    assert "photoUrl" not in info


def test_duplicate_email(api):
    api.register_user("bob@example.com", "notasecret")
    expect_error(api.v1("signUp", {"email": "bob@example.com", "password": "notasecret"}), 400, "EMAIL_EXISTS")
    expect_error(api.v1("signUp", {"email": "BOB@example.com", "password": "notasecret"}), 400, "EMAIL_EXISTS")


def test_email_taken_by_idp_account(api):
    email = "alice@example.com"
    api.sign_in_fake_claims("google.com", sub="123", email=email)
    expect_error(api.v1("signUp", {"email": email, "password": "notasecret"}), 400, "EMAIL_EXISTS")


def test_invalid_email_format(api):
    expect_error(api.v1("signUp", {"email": "not.an.email.address.at.all", "password": "notasecret"}),
                 400, "INVALID_EMAIL")


def test_email_lowercased(api):
    body = expect_ok(api.v1("signUp", {"email": "AlIcE@exAMPle.COM", "password": "notasecret"}))
    assert body["email"] == "alice@example.com"


def test_password_too_short(api):
    expect_error(api.v1("signUp", {"email": "me@example.com", "password": "short"}), 400, "WEAK_PASSWORD",
                 prefix=True)


def test_id_token_without_email_or_password(api):
    id_token = api.register_anon()["idToken"]
    expect_error(api.v1("signUp", {"idToken": id_token}), 400, "MISSING_EMAIL")
    expect_error(api.v1("signUp", {"idToken": id_token, "email": "alice@example.com"}), 400, "MISSING_PASSWORD")


def test_link_password_to_anon(api):
    anon = api.register_anon()
    body = expect_ok(api.v1("signUp", {"idToken": anon["idToken"], "email": "alice@example.com",
                                       "password": "notasecret"}))
    assert body["localId"] == anon["localId"]
    assert decode_jwt(body["idToken"])[1]["firebase"]["sign_in_provider"] == "password"


def test_link_password_to_phone_user(api):
    email = "alice@example.com"
    phone = api.sign_in_phone(TEST_PHONE_NUMBER)
    body = expect_ok(api.v1("signUp", {"idToken": phone["idToken"], "email": email, "password": "notasecret"}))
    assert body["localId"] == phone["localId"]
    firebase = decode_jwt(body["idToken"])[1]["firebase"]
    assert firebase["sign_in_provider"] == "password"
    assert firebase["identities"] == {"phone": [TEST_PHONE_NUMBER], "email": [email]}


def test_link_to_disabled_account(api):
    anon = api.register_anon()
    api.update_account(anon["localId"], disableUser=True)
    expect_error(api.v1("signUp", {"idToken": anon["idToken"], "email": "alice@example.com",
                                   "password": "notasecret"}), 400, "USER_DISABLED")


def test_replace_email_password_of_linked_account(api):
    user = api.register_user("alice@example.com", "notasecret")
    body = expect_ok(api.v1("signUp", {"idToken": user["idToken"], "email": "bob@example.com",
                                       "password": "notasecret2"}))
    assert body["localId"] == user["localId"]
    assert body["email"] == "bob@example.com"
    payload = decode_jwt(body["idToken"])[1]
    assert payload["email"] == "bob@example.com"
    assert payload["firebase"]["identities"] == {"email": ["bob@example.com"]}
    assert not api.signin_methods("alice@example.com")


def test_admin_creates_phone_account(api):
    body = expect_ok(api.admin("signUp", {"phoneNumber": TEST_PHONE_NUMBER, "displayName": "Alice"}))
    assert "idToken" not in body and "refreshToken" not in body
    assert body.get("displayName") == "Alice"
    assert isinstance(body.get("localId"), str) and body["localId"]
    phone = api.sign_in_phone(TEST_PHONE_NUMBER)
    assert phone["localId"] == body["localId"]
    assert api.lookup_by_token(phone["idToken"]).get("displayName") == "Alice"


def test_local_id_unexpected_parameter(api):
    expect_error(api.v1("signUp", {"localId": "anything"}), 400, "UNEXPECTED_PARAMETER : User ID")
    anon = api.register_anon()
    expect_error(api.admin("signUp", {"idToken": anon["idToken"], "localId": anon["localId"]}), 400,
                 "UNEXPECTED_PARAMETER : User ID")


def test_admin_creates_with_local_id(api):
    body = expect_ok(api.admin("signUp", {"localId": "haha"}))
    assert "idToken" not in body and "refreshToken" not in body
    assert body["localId"] == "haha"


def test_duplicate_local_id(api):
    anon = api.register_anon()
    expect_error(api.admin("signUp", {"localId": anon["localId"]}), 400, "DUPLICATE_LOCAL_ID")


def test_invalid_phone_number(api):
    expect_error(api.admin("signUp", {"phoneNumber": TEST_INVALID_PHONE_NUMBER}), 400,
                 "INVALID_PHONE_NUMBER : Invalid format.")


def _mfa(api, local_id):
    return api.lookup_by_local_id(local_id).get("mfaInfo") or []


def _includes(d: dict, sub: dict) -> bool:
    return all(d.get(k) == v for k, v in sub.items())


def test_create_with_mfa_info(api):
    user = api.register_user("alice@example.com", "notasecret", mfaInfo=[TEST_MFA_INFO])
    mfa = _mfa(api, user["localId"])
    assert len(mfa) == 1
    assert _includes(mfa[0], TEST_MFA_INFO)
    assert isinstance(mfa[0].get("mfaEnrollmentId"), str) and mfa[0]["mfaEnrollmentId"]


def test_create_with_two_mfa_factors(api):
    user = api.register_user("alice@example.com", "notasecret",
                             mfaInfo=[TEST_MFA_INFO, {**TEST_MFA_INFO, "phoneInfo": TEST_PHONE_NUMBER_2}])
    mfa = _mfa(api, user["localId"])
    assert len(mfa) == 2
    for factor in mfa:
        if factor.get("phoneInfo") != TEST_MFA_INFO["phoneInfo"]:
            assert factor.get("phoneInfo") == TEST_PHONE_NUMBER_2
        else:
            assert _includes(factor, TEST_MFA_INFO)
        assert factor.get("mfaEnrollmentId")


def test_dedupe_same_mfa_factors(api):
    alice = api.register_user("alice@example.com", "notasecret", mfaInfo=[TEST_MFA_INFO] * 3)
    mfa = _mfa(api, alice["localId"])
    assert len(mfa) == 1
    assert _includes(mfa[0], TEST_MFA_INFO) and mfa[0].get("mfaEnrollmentId")
    bob = api.register_user("bob@example.com", "notasecret",
                            mfaInfo=[TEST_MFA_INFO] * 3 + [{**TEST_MFA_INFO, "phoneInfo": TEST_PHONE_NUMBER_2}])
    mfa = _mfa(api, bob["localId"])
    assert len(mfa) == 2
    for factor in mfa:
        if factor.get("phoneInfo") != TEST_MFA_INFO["phoneInfo"]:
            assert factor.get("phoneInfo") == TEST_PHONE_NUMBER_2
        else:
            assert _includes(factor, TEST_MFA_INFO)
        assert factor.get("mfaEnrollmentId")


def test_mfa_display_name_optional(api):
    user = api.register_user("alice@example.com", "notasecret", mfaInfo=[{"phoneInfo": TEST_PHONE_NUMBER}])
    mfa = _mfa(api, user["localId"])
    assert len(mfa) == 1
    assert mfa[0].get("phoneInfo") == TEST_PHONE_NUMBER and mfa[0].get("mfaEnrollmentId")
    assert "displayName" not in mfa[0]


def test_invalid_mfa_phone_number(api):
    expect_error(api.admin("signUp", {"email": "alice@example.com", "password": "notasecret",
                                      "mfaInfo": [{"phoneInfo": TEST_INVALID_PHONE_NUMBER}]}),
                 400, "INVALID_MFA_PHONE_NUMBER : Invalid format.")


def test_mfa_enrollment_id_ignored_on_create(api):
    ids = ["thisShouldBeIgnored1", "thisShouldBeIgnored2"]
    user = api.register_user("alice@example.com", "notasecret",
                             mfaInfo=[{**TEST_MFA_INFO, "mfaEnrollmentId": i} for i in ids])
    mfa = _mfa(api, user["localId"])
    assert len(mfa) == 1
    assert _includes(mfa[0], TEST_MFA_INFO) and mfa[0].get("mfaEnrollmentId")
    assert mfa[0]["mfaEnrollmentId"] not in ids


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(api.v1("signUp", {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED", contains=True)


def test_tenant_password_signup_not_allowed(api):
    tenant = api.register_tenant({"allowPasswordSignup": False})
    expect_error(api.v1("signUp", {"tenantId": tenant["tenantId"], "email": "me@example.com",
                                   "password": "notasecret"}), 400, "OPERATION_NOT_ALLOWED", contains=True)


def test_tenant_anonymous_disabled(api):
    tenant = api.register_tenant({"enableAnonymousUser": False})
    expect_error(api.v1("signUp", {"tenantId": tenant["tenantId"], "returnSecureToken": True}), 400,
                 "ADMIN_ONLY_OPERATION", contains=True)


def test_create_with_tenant(api):
    tenant = api.register_tenant({"allowPasswordSignup": True})
    body = expect_ok(api.v1("signUp", {"tenantId": tenant["tenantId"], "email": "alice@example.com",
                                       "password": "notasecret"}))
    assert api.lookup_by_local_id(body["localId"], tenant["tenantId"]).get("tenantId") == tenant["tenantId"]


# --- blocking functions (the spec mocks them with nock; here a real local HTTP server answers) ---

def _blocking(api, functions, **triggers):
    api.update_config({"blockingFunctions": {"triggers": {
        name: {"functionUri": functions.base + "/" + name} for name in triggers}}}, "blockingFunctions")


def _check_new_password_user(body, email, session=False):
    assert isinstance(body.get("refreshToken"), str)
    payload = decode_jwt(body["idToken"])[1]
    assert payload["firebase"]["sign_in_provider"] == "password"
    assert payload["firebase"]["identities"] == {"email": [email]}
    assert body.get("displayName") == DISPLAY_NAME
    assert payload.get("name") == DISPLAY_NAME
    assert payload.get("picture") == PHOTO_URL
    assert payload.get("email_verified") is True
    assert payload.get("customAttribute") == "custom"
    if session:
        assert payload.get("sessionAttribute") == "session"


def test_before_create_updates_new_user(api, functions):
    _blocking(api, functions, beforeCreate=1)
    functions.reply("/beforeCreate", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": True, "customClaims": {"customAttribute": "custom"}}})
    body = expect_ok(api.v1("signUp", {"email": "me@example.com", "password": "notasecret"}))
    _check_new_password_user(body, "me@example.com")
    assert functions.pending() == 0


def test_before_sign_in_updates_new_user(api, functions):
    _blocking(api, functions, beforeSignIn=1)
    functions.reply("/beforeSignIn", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims,sessionClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": True, "customClaims": {"customAttribute": "custom"},
        "sessionClaims": {"sessionAttribute": "session"}}})
    body = expect_ok(api.v1("signUp", {"email": "me@example.com", "password": "notasecret"}))
    _check_new_password_user(body, "me@example.com", session=True)
    assert functions.pending() == 0


def test_before_sign_in_overrides_before_create(api, functions):
    _blocking(api, functions, beforeCreate=1, beforeSignIn=1)
    functions.reply("/beforeCreate", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims", "displayName": "oldDisplayName",
        "photoUrl": "oldPhotoUrl", "emailVerified": False, "customClaims": {"customAttribute": "oldCustom"}}})
    functions.reply("/beforeSignIn", 200, {"userRecord": {
        "updateMask": "displayName,photoUrl,emailVerified,customClaims,sessionClaims", "displayName": DISPLAY_NAME,
        "photoUrl": PHOTO_URL, "emailVerified": True, "customClaims": {"customAttribute": "custom"},
        "sessionClaims": {"sessionAttribute": "session"}}})
    body = expect_ok(api.v1("signUp", {"email": "me@example.com", "password": "notasecret"}))
    _check_new_password_user(body, "me@example.com", session=True)
    assert functions.pending() == 0


def test_before_create_disables_new_user(api, functions):
    _blocking(api, functions, beforeCreate=1)
    functions.reply("/beforeCreate", 200, {"userRecord": {"updateMask": "disabled", "disabled": True}})
    expect_error(api.v1("signUp", {"email": "me@example.com", "password": "notasecret"}), 400, "USER_DISABLED")
    assert functions.pending() == 0


def test_blocking_functions_skip_privileged_requests(api, functions):
    _blocking(api, functions, beforeCreate=1, beforeSignIn=1)
    functions.reply("/beforeCreate", 400)
    functions.reply("/beforeSignIn", 400)
    body = expect_ok(api.admin("signUp", {"phoneNumber": TEST_PHONE_NUMBER, "displayName": "Alice"}))
    assert "idToken" not in body and "refreshToken" not in body
    assert body.get("displayName") == "Alice" and body.get("localId")
    assert functions.calls == []
