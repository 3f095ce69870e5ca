"""firebase-tools src/emulator/auth/createAuthUri.spec.ts, translated: accounts:createAuthUri."""
from conftest import expect_error, expect_ok, not_applicable, xfail

URI = "http://example.com/"


def auth_uri(api, **body):
    return api.v1("createAuthUri", body)


def test_not_registered(api):
    body = expect_ok(auth_uri(api, continueUri=URI, identifier="notregistered@example.com"))
    assert body.get("registered") is False
    assert isinstance(body.get("sessionId"), str)


def test_privacy_hides_registered(api):
    api.update_config({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    body = expect_ok(auth_uri(api, continueUri=URI, identifier="notregistered@example.com"))
    assert "registered" not in body
    assert isinstance(body.get("sessionId"), str)


def test_registered_providers(api):
    api.register_user("alice@example.com", "notasecret")
    body = expect_ok(auth_uri(api, continueUri=URI, identifier="alice@example.com"))
    assert body.get("registered") is True
    assert body.get("allProviders") == ["password"]
    assert body.get("signinMethods") == ["password"]
    assert isinstance(body.get("sessionId"), str)


def test_privacy_hides_providers(api):
    api.update_config({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    api.register_user("alice@example.com", "notasecret")
    body = expect_ok(auth_uri(api, continueUri=URI, identifier="alice@example.com"))
    assert "registered" not in body
    assert "allProviders" not in body
    assert "signinMethods" not in body
    assert isinstance(body.get("sessionId"), str)


def test_keeps_session_id(api):
    body = expect_ok(auth_uri(api, continueUri=URI, identifier="notregistered@example.com", sessionId="my-session-1"))
    assert body.get("registered") is False
    assert body.get("sessionId") == "my-session-1"


def test_email_ignores_case(api):
    api.register_user("alice@example.com", "notasecret")
    assert expect_ok(auth_uri(api, continueUri=URI, identifier="AlIcE@exAMPle.COM")).get("registered") is True


def _idp_user_with_email_link(api):
    id_token = api.sign_in_fake_claims("google.com", sub="12345", email="alice@example.com")["idToken"]
    api.sign_in_email_link("bob@example.com", id_token)


def test_finds_idp_or_top_level_email(api):
    _idp_user_with_email_link(api)
    for identifier in ("bob@example.com", "alice@example.com"):
        body = expect_ok(auth_uri(api, continueUri=URI, identifier=identifier))
        assert body.get("registered") is True, identifier
        assert sorted(body.get("allProviders") or []) == sorted(["password", "google.com"]), body
        assert sorted(body.get("signinMethods") or []) == sorted(["emailLink", "google.com"]), body


def test_no_idp_methods_with_duplicate_emails(api):
    _idp_user_with_email_link(api)
    api.update_project_config({"signIn": {"allowDuplicateEmails": True}})
    for identifier in ("bob@example.com", "alice@example.com"):
        body = expect_ok(auth_uri(api, continueUri=URI, identifier=identifier))
        assert body.get("registered") is True, identifier
        assert body.get("allProviders") == ["password"], body
        assert body.get("signinMethods") == ["emailLink"], body


def test_missing_identifier_or_continue_uri(api):
    expect_error(auth_uri(api, continueUri=URI), 400, "MISSING_IDENTIFIER")
    expect_error(auth_uri(api, identifier="me@example.com"), 400, "MISSING_CONTINUE_URI")


def test_invalid_identifier(api):
    expect_error(auth_uri(api, identifier="invalid", continueUri="http://localhost/"), 400, "INVALID_IDENTIFIER")


def test_invalid_continue_uri(api):
    expect_error(auth_uri(api, identifier="me@example.com", continueUri="invalid"), 400, "INVALID_CONTINUE_URI")


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(auth_uri(api, tenantId=tenant["tenantId"], continueUri=URI, identifier="notregistered@example.com"),
                 400, "PROJECT_DISABLED")
