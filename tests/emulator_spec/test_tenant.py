"""firebase-tools src/emulator/auth/tenant.spec.ts, translated: /v2/projects/{p}/tenants management."""
from conftest import IDT, expect_ok, not_applicable, xfail

PROJECT = "project-id"
BASE = f"{IDT}/v2/projects/{PROJECT}/tenants"
FULL = {"allowPasswordSignup": True, "disableAuth": False, "displayName": "display", "enableAnonymousUser": True,
        "enableEmailLinkSignin": True, "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"],
                                                     "state": "ENABLED"}}


def _expect_full(body):
    for k, v in FULL.items():
        assert body.get(k) == v, k


def _expect_defaults(body):
    assert body.get("allowPasswordSignup") is False
    assert body.get("disableAuth") is False
    assert body.get("enableAnonymousUser") is False
    assert body.get("enableEmailLinkSignin") is False
    assert body.get("mfaConfig") == {"state": "DISABLED", "enabledProviders": []}


def get(api, path="", **params):
    return api.get(BASE + path, key=False, owner=True, params=params or None)


def test_create(api):
    body = expect_ok(api.post(BASE, FULL, key=False, owner=True))
    _expect_full(body)
    assert body.get("tenantId")
    assert body.get("name") == f"projects/{PROJECT}/tenants/{body['tenantId']}"


def test_create_defaults(api):
    _expect_defaults(expect_ok(api.post(BASE, {}, key=False, owner=True)))


def test_get(api):
    tenant = api.register_tenant({}, project=PROJECT)
    assert expect_ok(get(api, "/" + tenant["tenantId"])) == tenant


def test_get_creates_missing_tenant(api):
    assert len(expect_ok(get(api)).get("tenants") or []) == 0
    body = expect_ok(get(api, "/tenant-id"))
    assert body == {"tenantId": "tenant-id", "name": f"projects/{PROJECT}/tenants/tenant-id",
                    "allowPasswordSignup": True, "disableAuth": False, "enableAnonymousUser": True,
                    "enableEmailLinkSignin": True, "mfaConfig": {"enabledProviders": ["PHONE_SMS"],
                                                                 "state": "ENABLED"}}
    tenants = expect_ok(get(api)).get("tenants") or []
    assert [t["tenantId"] for t in tenants] == ["tenant-id"]


def test_delete(api):
    tenant = api.register_tenant({}, project=PROJECT)
    expect_ok(api.delete(f"{BASE}/{tenant['tenantId']}", key=False, owner=True))


def test_delete_with_body(api):
    tenant = api.register_tenant({}, project=PROJECT)
    expect_ok(api.request("DELETE", f"{BASE}/{tenant['tenantId']}", {}, key=False, owner=True))


def test_list(api):
    t1 = api.register_tenant({}, project=PROJECT)
    t2 = api.register_tenant({}, project=PROJECT)
    body = expect_ok(get(api))
    assert sorted(t["tenantId"] for t in body.get("tenants") or []) == sorted([t1["tenantId"], t2["tenantId"]])
    assert "nextPageToken" not in body


def test_list_pagination(api):
    ids = sorted(api.register_tenant({}, project=PROJECT)["tenantId"] for _ in range(2))
    body = expect_ok(get(api, pageSize=1))
    assert [t["tenantId"] for t in body["tenants"]] == ids[:1]
    token = body.get("nextPageToken")
    assert isinstance(token, str)
    body = expect_ok(get(api, pageToken=token))
    assert [t["tenantId"] for t in body["tenants"]] == ids[1:]
    assert "nextPageToken" not in body


def test_list_full_page_has_token(api):
    ids = sorted(api.register_tenant({}, project=PROJECT)["tenantId"] for _ in range(2))
    body = expect_ok(get(api, pageSize=2))
    assert [t["tenantId"] for t in body["tenants"]] == ids
    token = body.get("nextPageToken")
    assert isinstance(token, str)
    body = expect_ok(get(api, pageToken=token))
    assert not body.get("tenants")
    assert "nextPageToken" not in body


def patch(api, tenant_id, body, mask=None):
    return api.patch(f"{BASE}/{tenant_id}", body, key=False, owner=True, params={"updateMask": mask} if mask else None)


def test_update(api):
    tenant = api.register_tenant({}, project=PROJECT)
    mask = "allowPasswordSignup,disableAuth,displayName,enableAnonymousUser,enableEmailLinkSignin,mfaConfig"
    _expect_full(expect_ok(patch(api, tenant["tenantId"], FULL, mask)))


def test_update_mask_field_absent(api):
    tenant = api.register_tenant({}, project=PROJECT)
    assert "displayName" not in expect_ok(patch(api, tenant["tenantId"], {}, "displayName"))


def test_update_mask_indexing_primitive(api):
    tenant = api.register_tenant({"displayName": "display",
                                  "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]}},
                                 project=PROJECT)
    body = expect_ok(patch(api, tenant["tenantId"], {"displayName": "unused",
                                                     "mfaConfig": {"enabledProviders": ["PROVIDER_UNSPECIFIED"]}},
                           "displayName.0,mfaConfig.enabledProviders.nonexistentField"))
    assert body.get("displayName") == "display"
    assert body["mfaConfig"]["enabledProviders"] == ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]


def test_full_update_without_mask(api):
    tenant = api.register_tenant({}, project=PROJECT)
    _expect_full(expect_ok(patch(api, tenant["tenantId"], FULL)))


def test_full_update_defaults(api):
    tenant = api.register_tenant({}, project=PROJECT)
    _expect_defaults(expect_ok(patch(api, tenant["tenantId"], {})))
