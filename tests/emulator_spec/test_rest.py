"""firebase-tools src/emulator/auth/rest.spec.ts, translated: REST mapping and request authentication."""
from conftest import IDT, PROJECT_ID, expect_error, expect_ok, not_applicable, xfail


def test_status_check(api):
    res = api.get("/", key=False)
    assert res.status == 200, res
    assert isinstance(res.body, dict) and isinstance(res.body.get("authEmulator"), dict), res


def test_cors_preflight(api):
    res = api.request("OPTIONS", "/", key=False, headers={
        "Origin": "example.com",
        "Access-Control-Request-Headers": "Authorization,X-Client-Version,X-Whatever-Header",
        "Access-Control-Request-Private-Network": "true"})
    assert res.status == 204, res
    h = res.raw.headers
    assert h.get("access-control-allow-origin") == "example.com"
    assert sorted(x.strip() for x in (h.get("access-control-allow-headers") or "").split(",")) == sorted(
        ["Authorization", "X-Client-Version", "X-Whatever-Header"])
    assert h.get("access-control-allow-private-network") == "true"


def test_integer_enum(api):
    body = expect_ok(api.admin("sendOobCode", {"email": "bob@example.com", "requestType": 6, "returnOobLink": True}))
    assert "mode=signIn" in body.get("oobLink", "")


def test_integer_enum_legacy_path(api):
    res = api.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode",
                   {"email": "bob@example.com", "requestType": 6, "returnOobLink": True}, key=False, owner=True)
    assert "mode=signIn" in expect_ok(res).get("oobLink", "")


def test_number_for_string_field(api):
    expect_error(api.admin("update", {"localId": "nosuch", "validSince": 1611780718}), 400, "USER_NOT_FOUND")


def test_no_api_key(api):
    res = api.v1("signUp", {"returnSecureToken": True}, key=False)
    assert res.status == 403, res
    assert res.body["error"].get("status") == "PERMISSION_DENIED"


def test_api_key_query(api):
    body = expect_ok(api.v1("signUp", {}))
    assert "error" not in body


def test_api_key_header(api):
    body = expect_ok(api.v1("signUp", {}, key=False, headers={"x-goog-api-key": "fake-api-key"}))
    assert "error" not in body


def test_non_bearer_authorization_ignored(api):
    res = api.v1("signUp", {"returnSecureToken": True}, key=False,
                 headers={"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"})
    assert res.status == 403, res
    assert res.body["error"].get("status") == "PERMISSION_DENIED"


def test_bearer_owner(api):
    assert "error" not in expect_ok(api.admin("signUp", {"targetProjectId": "example2"}))


def test_bearer_owner_any_case(api):
    res = api.v1("signUp", {"targetProjectId": "example2"}, key=False, headers={"Authorization": "bEArEr OWNER"})
    assert "error" not in expect_ok(res)


def test_production_access_token(api):
    token = "ya" + "29.AHES0ZZZZZ0fff" + "ff0XXXX0mmmm0wwwww0-LL_l-0bb0b0bbbbbb"
    res = api.v1("signUp", {"targetProjectId": "example2"}, key=False, headers={"Authorization": "Bearer " + token})
    assert "error" not in expect_ok(res)


def test_target_project_needs_oauth(api):
    expect_error(api.v1("signUp", {"targetProjectId": "example2"}), 400,
                 "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")


def test_tenant_mismatch_body_and_path(api):
    res = api.post(f"{IDT}/v1/projects/project-id/tenants/tenant-id/accounts:delete",
                   {"localId": "local-id", "tenantId": "mismatching-tenant-id"}, key=False, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")


def _tenant_user(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": True})
    return api.register_user("alice@example.com", "notasecret", tenantId=tenant["tenantId"])["idToken"]


def test_tenant_mismatch_token_and_path(api):
    id_token = _tenant_user(api)
    res = api.post(f"{IDT}/v1/projects/{PROJECT_ID}/tenants/not-matching-tenant-id/accounts:lookup",
                   {"idToken": id_token}, key=False, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")


def test_tenant_mismatch_token_and_body(api):
    id_token = _tenant_user(api)
    res = api.post(f"{IDT}/v1/projects/{PROJECT_ID}/accounts:lookup",
                   {"idToken": id_token, "tenantId": "not-matching-tenant-id"}, key=False, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")
