"""firebase-tools src/emulator/auth/customToken.spec.ts, translated: accounts:signInWithCustomToken."""
import json
import time

from conftest import decode_jwt, expect_error, expect_ok, not_applicable, unsigned_jwt, xfail

AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
SA = "fake-service-account@example.com"
CLAIMS = {"abc": "def", "ultimate": {"answer": 42}}


def custom_token(payload: dict, audience: str = AUDIENCE) -> str:
    now = int(time.time())
    return unsigned_jwt({**payload, "iat": now, "exp": now + 3600, "aud": audience, "iss": SA, "sub": SA})


def sign_in(api, **body):
    return api.v1("signInWithCustomToken", body)


def test_new_account_from_unsigned_token(api):
    body = expect_ok(sign_in(api, token=custom_token({"uid": "someuid", "claims": CLAIMS})))
    assert body.get("isNewUser") is True
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "custom"
    for k, v in CLAIMS.items():
        assert payload.get(k) == v
    assert api.lookup_by_token(body["idToken"])["localId"] == "someuid"


def test_existing_account_merges_claims(api):
    email = "alice@example.com"
    local_id = api.sign_in_email_link(email)["localId"]
    account_claims = {"abc": "abc", "foo": "bar"}
    api.update_account(local_id, customAttributes=json.dumps(account_claims))
    body = expect_ok(sign_in(api, token=json.dumps({"uid": local_id, "claims": CLAIMS})))
    assert body.get("isNewUser") is False
    assert isinstance(body.get("refreshToken"), str)
    header, payload = decode_jwt(body["idToken"])
    assert header["alg"] == "none"
    assert "provider_id" not in payload
    assert payload["firebase"]["sign_in_provider"] == "custom"
    assert payload["firebase"]["identities"] == {"email": [email]}
    for k, v in {**account_claims, **CLAIMS}.items():
        assert payload.get(k) == v, k
    refreshed = expect_ok(api.refresh(body["refreshToken"]))["id_token"]
    payload = decode_jwt(refreshed)[1]
    for k, v in {**account_claims, **CLAIMS}.items():
        assert payload.get(k) == v, k


def test_missing_token(api):
    expect_error(sign_in(api), 400, "MISSING_CUSTOM_TOKEN")


def test_invalid_token(api):
    expect_error(sign_in(api, token="{not+Json,That's=>For@Sure}"), 400, "INVALID_CUSTOM_TOKEN", contains=True)
    expect_error(sign_in(api, token="ThisMayLookLikeAJWT.ButItWontDecode.ToJsonObjects"), 400,
                 "INVALID_CUSTOM_TOKEN", contains=True)


def test_wrong_audience(api):
    token = custom_token({"uid": "foo"}, audience="http://localhost/not-the-firebase-auth-audience")
    expect_error(sign_in(api, token=token), 400, "INVALID_CUSTOM_TOKEN", contains=True)


def test_no_uid(api):
    expect_error(sign_in(api, token=custom_token({})), 400, "MISSING_IDENTIFIER", contains=True)
    expect_error(sign_in(api, token='{"look": "I do not have uid"}'), 400, "MISSING_IDENTIFIER", contains=True)


def test_forbidden_claim(api):
    expect_error(sign_in(api, token='{"uid": "wow", "claims": {"firebase": "awesome"}}'), 400,
                 "FORBIDDEN_CLAIM : firebase", contains=True)


def test_user_disabled(api):
    local_id = api.sign_in_email_link("alice@example.com")["localId"]
    api.update_account(local_id, disableUser=True)
    expect_error(sign_in(api, token=json.dumps({"uid": local_id, "claims": CLAIMS})), 400, "USER_DISABLED")


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(sign_in(api, tenantId=tenant["tenantId"]), 400, "PROJECT_DISABLED")


def test_tenant_mismatch(api):
    tenant = api.register_tenant({"disableAuth": False})
    token = custom_token({"uid": "someuid", "claims": CLAIMS, "tenant_id": "not-matching-tenant-id"})
    expect_error(sign_in(api, token=token, tenantId=tenant["tenantId"]), 400, "TENANT_ID_MISMATCH", contains=True)


def test_new_account_in_tenant(api):
    tenant = api.register_tenant({"disableAuth": False})
    token = custom_token({"uid": "someuid", "claims": CLAIMS, "tenant_id": tenant["tenantId"]})
    body = expect_ok(sign_in(api, token=token, tenantId=tenant["tenantId"]))
    assert body.get("isNewUser") is True and isinstance(body.get("refreshToken"), str)
    assert api.lookup_by_token(body["idToken"], tenant["tenantId"]).get("tenantId") == tenant["tenantId"]
