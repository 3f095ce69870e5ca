"""firebase-tools src/emulator/auth/passkey.spec.ts, translated: the v2 passkey methods in emulator mode, whose mock
checks no WebAuthn data (Hearth's production verification is tested in tests/interop/test_passkeys.py)."""
from conftest import IDT, decode_jwt, expect_error, expect_ok


def v2(api, method, body):
    return api.post(f"{IDT}/v2/accounts/{method}", body)


def enroll(api, id_token, credential_id, **extra):
    return v2(api, "passkeyEnrollment:finalize",
              {"idToken": id_token, "authenticatorRegistrationResponse": {"id": credential_id}, **extra})


def test_enrollment_start_returns_options(api):
    id_token = api.register_user("passkey-user@example.com", "password123")["idToken"]
    options = expect_ok(v2(api, "passkeyEnrollment:start", {"idToken": id_token}))["credentialCreationOptions"]
    assert options["rp"]["id"] == "localhost"
    assert isinstance(options["challenge"], str) and options["challenge"]


def test_enrollment_finalize_returns_tokens(api):
    id_token = api.register_user("passkey-user-2@example.com", "password123")["idToken"]
    body = expect_ok(enroll(api, id_token, "test_credential_id_1", name="My Security Key"))
    assert body["idToken"] and body["refreshToken"] and body["localId"]
    assert decode_jwt(body["idToken"])[1]["firebase"]["sign_in_provider"] == "passkey"
    user = api.lookup_by_token(id_token)
    assert user["passkeyInfo"] == [{"credentialId": "test_credential_id_1", "name": "My Security Key"}]


def test_sign_in_start_options(api):
    options = expect_ok(v2(api, "passkeySignIn:start", {}))["credentialRequestOptions"]
    assert isinstance(options["challenge"], str) and options["challenge"]
    assert options["rpId"] == "localhost"


def test_sign_in_with_registered_passkey(api):
    id_token = api.register_user("passkey-user-3@example.com", "password123")["idToken"]
    expect_ok(enroll(api, id_token, "test_credential_id_3", name="My Key"))
    body = expect_ok(v2(api, "passkeySignIn:finalize",
                        {"authenticatorAuthenticationResponse": {"id": "test_credential_id_3"}}))
    assert body["idToken"] and body["refreshToken"]


def test_sign_in_unregistered_passkey_fails(api):
    expect_error(v2(api, "passkeySignIn:finalize", {"authenticatorAuthenticationResponse": {"id": "nonexistent_cred_id"}}),
                 400, "PASSKEY_CREDENTIAL_NOT_FOUND")


def test_delete_passkey_via_update(api):
    id_token = api.register_user("passkey-user-4@example.com", "password123")["idToken"]
    expect_ok(enroll(api, id_token, "cred_4_A", name="Key A"))
    expect_ok(enroll(api, id_token, "cred_4_B", name="Key B"))
    expect_ok(api.v1("update", {"idToken": id_token, "deletePasskey": ["cred_4_A"]}))
    assert api.lookup_by_token(id_token)["passkeyInfo"] == [{"credentialId": "cred_4_B", "name": "Key B"}]


def test_name_falls_back_to_display_name(api):
    id_token = api.register_user("passkey-fallback@example.com", "password123",
                                 displayName="My Display Name")["idToken"]
    expect_ok(enroll(api, id_token, "fallback_cred_1", displayName="My Display Name"))
    id_token2 = api.register_user("passkey-fallback-2@example.com", "password123")["idToken"]
    expect_ok(enroll(api, id_token2, "fallback_cred_2"))
    assert api.lookup_by_token(id_token)["passkeyInfo"][0]["name"] == "My Display Name"
    assert api.lookup_by_token(id_token2)["passkeyInfo"][0]["name"] == "Unnamed Passkey"


def test_start_finalize_missing_fields(api):
    expect_error(v2(api, "passkeyEnrollment:start", {}), 400, "MISSING_ID_TOKEN")
    expect_error(v2(api, "passkeyEnrollment:finalize", {"authenticatorRegistrationResponse": {"id": "some_cred"}}),
                 400, "MISSING_ID_TOKEN")
    expect_error(v2(api, "passkeyEnrollment:finalize", {"idToken": "some_token"}), 400,
                 "MISSING_AUTHENTICATOR_RESPONSE")
    expect_error(v2(api, "passkeySignIn:finalize", {}), 400, "MISSING_AUTHENTICATOR_RESPONSE")


def test_delete_passkey_when_none(api):
    id_token = api.register_user("passkey-no-keys@example.com", "password123")["idToken"]
    expect_ok(api.v1("update", {"idToken": id_token, "deletePasskey": ["nonexistent_key"]}))
