"""firebase-tools src/emulator/auth/config.spec.ts, translated: the v2 project config (get/update)."""
from conftest import IDT, PROJECT_ID, expect_error, expect_ok, not_applicable, xfail

PATH = f"{IDT}/v2/projects/{PROJECT_ID}/config"
NON_DEFAULT = {"signIn": {"allowDuplicateEmails": True},
               "blockingFunctions": {"forwardInboundCredentials": {"idToken": True}}}


def patch(api, body, mask=None):
    return api.patch(PATH, body, key=False, owner=True, params={"updateMask": mask} if mask else None)


def _expect_non_default(body):
    assert (body.get("signIn") or {}).get("allowDuplicateEmails") is True, body
    assert body.get("blockingFunctions") == {"forwardInboundCredentials": {"idToken": True}}, body


def test_update_with_mask(api):
    mask = "signIn.allowDuplicateEmails,blockingFunctions.forwardInboundCredentials.idToken"
    _expect_non_default(expect_ok(patch(api, NON_DEFAULT, mask)))


def test_update_mask_field_absent(api):
    body = expect_ok(patch(api, {}, "displayName"))
    assert "displayName" not in body


def test_full_update_without_mask(api):
    _expect_non_default(expect_ok(patch(api, NON_DEFAULT)))


def test_full_update_resets_to_defaults(api):
    _expect_non_default(expect_ok(patch(api, NON_DEFAULT)))
    body = expect_ok(patch(api, {}))
    assert (body.get("signIn") or {}).get("allowDuplicateEmails") is False, body
    assert body.get("blockingFunctions") == {}, body


def test_invalid_blocking_event(api):
    res = patch(api, {"blockingFunctions": {"triggers": {"invalidEventTrigger": {"functionUri": "http://localhost"}}}})
    expect_error(res, 400, "INVALID_BLOCKING_FUNCTION", contains=True)


def test_invalid_function_uri(api):
    res = patch(api, {"blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": "invalidUri"}}}})
    expect_error(res, 400, "INVALID_BLOCKING_FUNCTION", contains=True)


def test_get_config(api):
    body = expect_ok(api.get(PATH, key=False, owner=True))
    assert body.get("signIn") == {"allowDuplicateEmails": False}, body
    assert body.get("blockingFunctions") == {}, body


def test_get_updated_config(api):
    patch(api, NON_DEFAULT)
    body = expect_ok(api.get(PATH, key=False, owner=True))
    assert body.get("signIn") == {"allowDuplicateEmails": True}, body
    assert body.get("blockingFunctions") == {"forwardInboundCredentials": {"idToken": True}}, body
