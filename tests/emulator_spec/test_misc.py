"""firebase-tools src/emulator/auth/misc.spec.ts, translated: token refresh, createSessionCookie, accounts:lookup,
accounts:query and the emulator's utility routes."""
import base64
import json
import time

from conftest import IDT, PROJECT_ID, ST, TEST_PHONE_NUMBER, decode_jwt, expect_error, expect_ok, not_applicable, xfail

SESSION_COOKIE_MAX_VALID_DURATION = 14 * 24 * 60 * 60


def token(api, form: dict):
    return api.post(f"{ST}/v1/token", data=form, headers={"Content-Type": "application/x-www-form-urlencoded"})


def _check_refresh_answer(body, local_id):
    assert isinstance(body.get("id_token"), str)
    assert body.get("access_token") == body["id_token"]
    assert isinstance(body.get("refresh_token"), str)
    assert isinstance(body.get("expires_in"), str) and body["expires_in"].isdigit()
    assert body.get("project_id") == "12345"
    assert body.get("token_type") == "Bearer"
    assert body.get("user_id") == local_id


# --- token refresh ---

def test_refresh_exchanges_tokens(api):
    anon = api.register_anon()
    body = expect_ok(token(api, {"refresh_token": anon["refreshToken"], "grantType": "refresh_token"}))
    _check_refresh_answer(body, anon["localId"])


def test_refresh_in_tenant(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": True})
    user = api.register_user("alice@example.com", "notasecret", tenantId=tenant["tenantId"])
    body = expect_ok(token(api, {"refresh_token": user["refreshToken"], "grantType": "refresh_token"}))
    _check_refresh_answer(body, user["localId"])
    # The spec reads the tenant out of the emulator's refresh-token record; the minted ID token carries it too.
    assert decode_jwt(body["id_token"])[1]["firebase"].get("tenant") == tenant["tenantId"]


def test_refresh_auth_time_is_login_time(api):
    user = api.register_user("alice@example.com", "notasecret")
    time.sleep(2)  # the spec ticks its clock 2 s before refreshing
    res = token(api, {"refresh_token": user["refreshToken"], "grantType": "refresh_token"})
    id_token = expect_ok(res)["id_token"]
    info = api.lookup_by_token(id_token)
    assert info.get("lastLoginAt") is not None
    header, payload = decode_jwt(id_token)
    assert header["alg"] == "none"
    assert payload["auth_time"] == int(info["lastLoginAt"]) // 1000


def test_refresh_missing_grant_type(api):
    anon = api.register_anon()
    expect_error(token(api, {"refresh_token": anon["refreshToken"]}), 400, "MISSING_GRANT_TYPE", contains=True)


def test_refresh_wrong_grant_type(api):
    anon = api.register_anon()
    expect_error(token(api, {"refresh_token": anon["refreshToken"], "grantType": "other_grant_type"}), 400,
                 "INVALID_GRANT_TYPE", contains=True)


def test_refresh_missing_token(api):
    expect_error(token(api, {"grantType": "refresh_token"}), 400, "MISSING_REFRESH_TOKEN", contains=True)


def test_refresh_malformed_token(api):
    expect_error(token(api, {"refresh_token": "malformedToken", "grantType": "refresh_token"}), 400,
                 "INVALID_REFRESH_TOKEN", contains=True)


def test_refresh_disabled_user(api):
    anon = api.register_anon()
    api.update_account(anon["localId"], disableUser=True)
    expect_error(token(api, {"refreshToken": anon["refreshToken"], "grantType": "refresh_token"}), 400,
                 "USER_DISABLED")


def _forged(record: dict) -> str:
    return base64.b64encode(json.dumps(record).encode()).decode()


def test_refresh_token_of_other_project(api):
    forged = _forged({"_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": "localId", "provider": "provider",
                      "extraClaims": {}, "projectId": "notMatchingProjectId"})
    expect_error(token(api, {"refresh_token": forged, "grantType": "refresh_token"}), 400, "INVALID_REFRESH_TOKEN")


def test_refresh_token_without_required_fields(api):
    forged = _forged({"localId": "localId", "provider": "provider", "extraClaims": {},
                      "projectId": "notMatchingProjectId"})
    expect_error(token(api, {"refresh_token": forged, "grantType": "refresh_token"}), 400, "INVALID_REFRESH_TOKEN")


def test_refresh_deleted_user(api):
    anon = api.register_anon()
    api.delete_account({"idToken": anon["idToken"]})
    expect_error(token(api, {"refresh_token": anon["refreshToken"], "grantType": "refresh_token"}), 400,
                 "INVALID_REFRESH_TOKEN", contains=True)


# --- createSessionCookie ---

def session_cookie(api, body):
    return api.post(f"{IDT}/v1/projects/{PROJECT_ID}:createSessionCookie", body, key=False, owner=True)


def test_session_cookie(api):
    id_token = api.register_anon()["idToken"]
    t0 = int(time.time())
    body = expect_ok(session_cookie(api, {"idToken": id_token, "validDuration": "7777"}))
    t1 = int(time.time())
    assert isinstance(body.get("sessionCookie"), str)
    header, payload = decode_jwt(body["sessionCookie"])
    assert header["alg"] == "none"
    assert t0 <= payload["iat"] <= t1
    assert payload["exp"] == payload["iat"] + 7777
    assert payload["iss"] == f"https://session.firebase.google.com/{PROJECT_ID}"
    claims = decode_jwt(id_token)[1]
    for k in ("iss", "iat", "exp"):
        claims.pop(k)
    for k, v in claims.items():
        assert payload.get(k) == v, k


def test_session_cookie_missing_id_token(api):
    expect_error(session_cookie(api, {"validDuration": "7777"}), 400, "MISSING_ID_TOKEN")


def test_session_cookie_invalid_id_token(api):
    expect_error(session_cookie(api, {"idToken": "invalid", "validDuration": "7777"}), 400, "INVALID_ID_TOKEN")


def test_session_cookie_default_duration(api):
    id_token = api.register_anon()["idToken"]
    t0 = int(time.time())
    body = expect_ok(session_cookie(api, {"idToken": id_token}))
    t1 = int(time.time())
    header, payload = decode_jwt(body["sessionCookie"])
    assert header["alg"] == "none"
    assert t0 + SESSION_COOKIE_MAX_VALID_DURATION <= payload["exp"] <= t1 + SESSION_COOKIE_MAX_VALID_DURATION


def test_session_cookie_duration_bounds(api):
    id_token = api.register_anon()["idToken"]
    expect_error(session_cookie(api, {"idToken": id_token, "validDuration": "1"}), 400, "INVALID_DURATION")
    expect_error(session_cookie(api, {"idToken": id_token, "validDuration": "999999999999"}), 400,
                 "INVALID_DURATION")


# --- accounts:lookup ---

def lookup(api, body):
    return api.post(f"{IDT}/v1/projects/{PROJECT_ID}/accounts:lookup", body, key=False, owner=True)


def test_lookup_by_email(api):
    email = api.register_user("bob@example.com", "password")["email"]
    users = expect_ok(lookup(api, {"email": [email]}))["users"]
    assert len(users) == 1 and users[0]["email"] == email


def test_lookup_by_uppercased_email(api):
    email = api.register_user("foo@example.com", "password")["email"]
    users = expect_ok(lookup(api, {"email": [email.upper()]})).get("users") or []
    assert len(users) == 1 and users[0]["email"] == email


def test_lookup_email_not_found(api):
    assert "users" not in expect_ok(lookup(api, {"email": ["non-existent-email@example.com"]}))


def test_lookup_by_local_id(api):
    local_id = api.register_anon()["localId"]
    users = expect_ok(lookup(api, {"localId": [local_id]}))["users"]
    assert len(users) == 1 and users[0]["localId"] == local_id


def test_lookup_deduplicates(api):
    local_id = api.register_anon()["localId"]
    users = expect_ok(lookup(api, {"localId": [local_id, local_id]}))["users"]
    assert len(users) == 1 and users[0]["localId"] == local_id


def test_lookup_phone_provider_user_info(api):
    local_id = api.sign_in_phone(TEST_PHONE_NUMBER)["localId"]
    users = expect_ok(lookup(api, {"localId": [local_id]}))["users"]
    assert len(users) == 1
    assert users[0]["providerUserInfo"] == [
        {"phoneNumber": TEST_PHONE_NUMBER, "rawId": TEST_PHONE_NUMBER, "providerId": "phone"}]


def test_lookup_local_id_not_found(api):
    assert "users" not in expect_ok(lookup(api, {"localId": ["noSuchId"]}))


def test_lookup_tenant_from_id_token(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": True})
    user = api.register_user("alice@example.com", "notasecret", tenantId=tenant["tenantId"])
    users = expect_ok(api.v1("lookup", {"idToken": user["idToken"]}))["users"]
    assert len(users) == 1 and users[0]["localId"] == user["localId"]


def test_lookup_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(api.admin("lookup", {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED", contains=True)


# --- accounts:query ---

def query(api, body):
    return api.post(f"{IDT}/v1/projects/{PROJECT_ID}/accounts:query", body, key=False, owner=True)


def test_query_count_only(api):
    api.register_anon()
    api.register_anon()
    body = expect_ok(query(api, {"returnUserInfo": False}))
    assert body.get("recordsCount") == "2"
    assert "userInfo" not in body


def test_query_returns_accounts(api):
    anon = api.register_anon()["localId"]
    bob = api.register_user("alice@example.com", "notasecret")["localId"]
    body = expect_ok(query(api, {}))
    assert body.get("recordsCount") == "2"
    users = body.get("userInfo")
    assert isinstance(users, list) and len(users) == 2
    assert users[0]["localId"] < users[1]["localId"], "users are not sorted by ID ASC"
    assert any(u["localId"] == anon for u in users)
    email_user = [u for u in users if u["localId"] == bob]
    assert email_user and email_user[0]["email"] == "alice@example.com"


def test_query_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(query(api, {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED")


# --- emulator utility routes ---

def emu(path):
    return f"/emulator/v1/projects/{PROJECT_ID}{path}"


def test_delete_all_accounts(api):
    a = api.register_user("alice@example.com", "notasecret")
    b = api.register_user("bob@example.com", "notasecret2")
    expect_ok(api.delete(emu("/accounts"), key=False))
    api.expect_user_gone(a["idToken"])
    api.expect_user_gone(b["idToken"])


def test_delete_all_tenant_accounts(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": True})
    t = tenant["tenantId"]
    a = api.register_user("alice@example.com", "notasecret", tenantId=t)
    b = api.register_user("bob@example.com", "notasecret2", tenantId=t)
    expect_ok(api.delete(emu(f"/tenants/{t}/accounts"), key=False))
    for user in (a, b):
        expect_error(api.v1("lookup", {"idToken": user["idToken"], "tenantId": t}), 400, "USER_NOT_FOUND")


def _expect_config(body, dup, privacy):
    assert body.get("signIn") == {"allowDuplicateEmails": dup}, body
    assert body.get("emailPrivacyConfig") == {"enableImprovedEmailPrivacy": privacy}, body


def test_get_config_defaults(api):
    _expect_config(expect_ok(api.get(emu("/config"), key=False)), False, False)


def test_config_other_project_no_warning(api):
    expect_ok(api.get("/emulator/v1/projects/someproject/config", key=False))


def _patch(api, body):
    return expect_ok(api.patch(emu("/config"), body, key=False))


def test_patch_config_allow_duplicate_emails(api):
    _expect_config(_patch(api, {"signIn": {"allowDuplicateEmails": True}}), True, False)
    _expect_config(_patch(api, {"signIn": {"allowDuplicateEmails": False}}), False, False)


def test_patch_config_email_privacy(api):
    _expect_config(_patch(api, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}), False, True)
    _expect_config(_patch(api, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}), False, False)


def test_patch_config_both(api):
    _expect_config(_patch(api, {"signIn": {"allowDuplicateEmails": True},
                                "emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}), True, True)
    _expect_config(_patch(api, {"signIn": {"allowDuplicateEmails": False},
                                "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}), False, False)


@not_applicable("singleProjectMode=ERROR is a firebase.json switch of the emulator; Hearth serves any project id")
def test_config_other_project_single_project_error(api):
    res = api.get("/emulator/v1/projects/someproject/config", key=False)
    expect_error(res, 400, "single project mode", contains=True)
