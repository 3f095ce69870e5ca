"""firebase-tools src/emulator/auth/deleteAccount.spec.ts, translated: accounts:delete."""
from conftest import expect_error, expect_ok, not_applicable, xfail


def test_delete_by_id_token(api):
    id_token = api.register_user("alice@example.com", "notasecret")["idToken"]
    assert "error" not in expect_ok(api.v1("delete", {"idToken": id_token}))
    api.expect_user_gone(id_token)


def test_local_id_needs_oauth(api):
    local_id = api.register_user("alice@example.com", "notasecret")["localId"]
    expect_error(api.v1("delete", {"localId": local_id}), 400, "MISSING_ID_TOKEN")


def test_removes_federated_links(api):
    user = api.sign_in_fake_claims("google.com", sub="12345", email="alice@example.com")
    assert "error" not in expect_ok(api.v1("delete", {"idToken": user["idToken"]}))
    assert not api.signin_methods("alice@example.com")
    again = api.sign_in_fake_claims("google.com", sub="12345", email="alice@example.com")
    assert again["localId"] != user["localId"]


def test_admin_delete_by_local_id(api):
    user = api.register_user("alice@example.com", "notasecret")
    assert "error" not in expect_ok(api.admin("delete", {"localId": user["localId"]}))
    api.expect_user_gone(user["idToken"])


def test_admin_missing_local_id(api):
    id_token = api.register_user("alice@example.com", "notasecret")["idToken"]
    expect_error(api.admin("delete", {"idToken": id_token}), 400, "MISSING_LOCAL_ID")


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(api.v1("delete", {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED", contains=True)
