"""The official firebase-admin Python SDK managing users on Hearth through FIREBASE_AUTH_EMULATOR_HOST, the
way a backend manages Firebase users (emulator mode: the SDK authenticates as `Bearer owner`)."""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.parse

import firebase_admin
import pytest
import requests
from firebase_admin import auth, credentials

# github.com/firebase/scrypt's published project parameters, and the Admin SDKs' import test user.
SCRYPT_KEY = base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
SCRYPT_HASH = base64.b64decode("V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw==")


@pytest.fixture(scope="module")
def admin(hearth_emulator):
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = hearth_emulator.host
    app = firebase_admin.initialize_app(options={"projectId": hearth_emulator.project}, name="hearth-emulator")
    try:
        yield app
    finally:
        firebase_admin.delete_app(app)
        if previous is None:
            del os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
        else:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous


def rest(hearth, method, body):
    reply = requests.post(f"{hearth.base}/identitytoolkit.googleapis.com/v1/accounts:{method}",
                          params={"key": "any"}, json=body, timeout=10)
    return reply.status_code, reply.json()


def password_sign_in(hearth, email, password):
    return rest(hearth, "signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})


def test_create_get_update_and_delete_a_user(admin, hearth_emulator):
    user = auth.create_user(uid="py-1", email="Py@Example.com", password="secret-1", display_name="Py",
                            phone_number="+16505550111", email_verified=True, app=admin)
    assert user.uid == "py-1" and user.email == "py@example.com" and user.email_verified
    assert auth.get_user("py-1", app=admin).display_name == "Py"
    assert auth.get_user_by_email("py@example.com", app=admin).uid == "py-1"
    assert auth.get_user_by_phone_number("+16505550111", app=admin).uid == "py-1"
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid="py-1", app=admin)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email="py@example.com", app=admin)

    updated = auth.update_user("py-1", display_name=auth.DELETE_ATTRIBUTE, phone_number=auth.DELETE_ATTRIBUTE,
                               disabled=True, app=admin)
    assert updated.display_name is None and updated.phone_number is None and updated.disabled
    status, body = password_sign_in(hearth_emulator, "py@example.com", "secret-1")
    assert status == 400 and body["error"]["message"].startswith("USER_DISABLED")
    auth.update_user("py-1", disabled=False, password="secret-2", app=admin)
    assert password_sign_in(hearth_emulator, "py@example.com", "secret-2")[0] == 200

    auth.delete_user("py-1", app=admin)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user("py-1", app=admin)


def test_get_users_by_mixed_identifiers(admin):
    auth.create_user(uid="gu-1", email="gu1@example.com", app=admin)
    auth.create_user(uid="gu-2", phone_number="+16505550112", app=admin)
    result = auth.get_users([auth.UidIdentifier("gu-1"), auth.PhoneIdentifier("+16505550112"),
                             auth.EmailIdentifier("nobody@example.com")], app=admin)
    assert sorted(u.uid for u in result.users) == ["gu-1", "gu-2"]
    assert [str(i.email) for i in result.not_found] == ["nobody@example.com"]


def test_custom_claims_reach_the_id_token(admin, hearth_emulator):
    auth.create_user(uid="claims-1", email="claims@example.com", password="secret-1", app=admin)
    auth.set_custom_user_claims("claims-1", {"admin": True, "tier": 2}, app=admin)
    assert auth.get_user("claims-1", app=admin).custom_claims == {"admin": True, "tier": 2}
    status, body = password_sign_in(hearth_emulator, "claims@example.com", "secret-1")
    assert status == 200
    claims = auth.verify_id_token(body["idToken"], app=admin)
    assert claims["admin"] is True and claims["tier"] == 2
    with pytest.raises(ValueError):
        auth.set_custom_user_claims("claims-1", {"sub": "x"}, app=admin)  # the SDK checks reserved names too


def test_list_users_pages_past_a_thousand(admin):
    records = [auth.ImportUserRecord(uid=f"list-{i:04d}", email=f"list{i}@example.com") for i in range(1100)]
    for start in range(0, 1100, 1000):
        result = auth.import_users(records[start:start + 1000], app=admin)
        assert result.failure_count == 0, [e.reason for e in result.errors]
    first = auth.list_users(max_results=1000, app=admin)
    assert len(first.users) == 1000 and first.has_next_page
    uids = [u.uid for u in auth.list_users(app=admin).iterate_all()]
    assert len([u for u in uids if u.startswith("list-")]) == 1100
    assert uids == sorted(uids)
    result = auth.delete_users([f"list-{i:04d}" for i in range(1000)], app=admin)
    assert result.success_count == 1000 and result.failure_count == 0


def test_revoked_sessions_fail_verification_with_check_revoked(admin, hearth_emulator):
    auth.create_user(uid="rev-1", email="rev@example.com", password="secret-1", app=admin)
    _, body = password_sign_in(hearth_emulator, "rev@example.com", "secret-1")
    assert auth.verify_id_token(body["idToken"], check_revoked=True, app=admin)["uid"] == "rev-1"
    time.sleep(1.1)  # validSince has whole seconds: revoke strictly after the token was issued
    auth.revoke_refresh_tokens("rev-1", app=admin)
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(body["idToken"], check_revoked=True, app=admin)
    status, refreshed = requests.post(f"{hearth_emulator.base}/securetoken.googleapis.com/v1/token",
                                      params={"key": "any"}, timeout=10,
                                      data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]}
                                      ).status_code, None
    assert status == 400


def test_imported_firebase_scrypt_users_sign_in_with_their_password(admin, hearth_emulator):
    users = [auth.ImportUserRecord(uid="imp-1", email="imported@example.com",
                                   password_hash=SCRYPT_HASH, password_salt=b"NaCl")]
    hash_alg = auth.UserImportHash.scrypt(key=SCRYPT_KEY, rounds=8, memory_cost=14, salt_separator=b"\x07")
    result = auth.import_users(users, hash_alg=hash_alg, app=admin)
    assert result.success_count == 1, [e.reason for e in result.errors]
    assert password_sign_in(hearth_emulator, "imported@example.com", "wrong")[0] == 400
    status, body = password_sign_in(hearth_emulator, "imported@example.com", "password")
    assert status == 200 and body["localId"] == "imp-1"


def test_action_links_reset_a_password_and_verify_an_address(admin, hearth_emulator):
    auth.create_user(uid="link-1", email="link@example.com", password="secret-1", app=admin)
    link = auth.generate_password_reset_link("link@example.com", app=admin)
    code = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["oobCode"][0]
    status, _ = rest(hearth_emulator, "resetPassword", {"oobCode": code, "newPassword": "secret-2"})
    assert status == 200
    assert password_sign_in(hearth_emulator, "link@example.com", "secret-2")[0] == 200

    auth.update_user("link-1", email="link2@example.com", app=admin)
    assert not auth.get_user("link-1", app=admin).email_verified
    link = auth.generate_email_verification_link("link2@example.com", app=admin)
    code = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["oobCode"][0]
    assert rest(hearth_emulator, "update", {"oobCode": code})[0] == 200
    assert auth.get_user("link-1", app=admin).email_verified
    with pytest.raises(auth.EmailNotFoundError):
        auth.generate_password_reset_link("nobody@example.com", app=admin)


def test_a_sign_in_link_from_generate_sign_in_with_email_link_signs_in(admin, hearth_emulator):
    settings = auth.ActionCodeSettings(url="https://localhost/finish", handle_code_in_app=True,
                                       ios_bundle_id="com.example.app")
    link = auth.generate_sign_in_with_email_link("emaillink@example.com", settings, app=admin)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)
    assert query["mode"] == ["signIn"] and query["continueUrl"] == ["https://localhost/finish"]
    status, body = rest(hearth_emulator, "signInWithEmailLink",
                        {"email": "emaillink@example.com", "oobCode": query["oobCode"][0]})
    assert status == 200 and body["isNewUser"] is True
    user = auth.get_user(body["localId"], app=admin)
    assert user.email == "emaillink@example.com" and user.email_verified


def test_session_cookies_are_minted_and_verified(admin, hearth_emulator):
    auth.create_user(uid="cookie-1", email="cookie@example.com", password="secret-1", app=admin)
    _, body = password_sign_in(hearth_emulator, "cookie@example.com", "secret-1")
    cookie = auth.create_session_cookie(body["idToken"], expires_in=3600, app=admin)
    claims = auth.verify_session_cookie(cookie, check_revoked=True, app=admin)
    assert claims["uid"] == "cookie-1"
    assert claims["iss"] == f"https://session.firebase.google.com/{hearth_emulator.project}"
    with pytest.raises(auth.InvalidIdTokenError):
        auth.create_session_cookie("not-a-token", expires_in=3600, app=admin)


def offline_custom_token(service_account_file, uid, claims=None):
    """create_custom_token in a process without FIREBASE_AUTH_EMULATOR_HOST: RS256, signed with the file's key."""
    script = (
        "import json, sys, firebase_admin\n"
        "from firebase_admin import auth, credentials\n"
        "app = firebase_admin.initialize_app(credentials.Certificate(sys.argv[1]))\n"
        "claims = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None\n"
        "print(auth.create_custom_token(sys.argv[2], claims, app=app).decode())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "FIREBASE_AUTH_EMULATOR_HOST"}
    args = [sys.executable, "-c", script, service_account_file, uid] + ([json.dumps(claims)] if claims else [])
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_custom_token_from_create_custom_token_signs_in(admin, hearth_emulator):
    token = offline_custom_token(hearth_emulator.service_account("minter"), "kakao:1234", {"plan": "pro"})
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["alg"] == "RS256"
    status, body = rest(hearth_emulator, "signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert status == 200, body
    claims = auth.verify_id_token(body["idToken"], app=admin)
    assert claims["uid"] == "kakao:1234" and claims["plan"] == "pro"
    assert auth.get_user("kakao:1234", app=admin).uid == "kakao:1234"


def test_oidc_provider_configs_are_managed_with_the_admin_sdk(admin):
    created = auth.create_oidc_provider_config(
        "oidc.corp", client_id="hearth-web", issuer="https://id.corp.example", display_name="Corp",
        enabled=True, app=admin)
    assert created.provider_id == "oidc.corp" and created.client_id == "hearth-web" and created.enabled
    assert auth.get_oidc_provider_config("oidc.corp", app=admin).issuer == "https://id.corp.example"
    updated = auth.update_oidc_provider_config("oidc.corp", client_id="hearth-ios", app=admin)
    assert updated.client_id == "hearth-ios" and updated.issuer == "https://id.corp.example"
    assert [p.provider_id for p in auth.list_oidc_provider_configs(app=admin).iterate_all()] == ["oidc.corp"]
    auth.delete_oidc_provider_config("oidc.corp", app=admin)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config("oidc.corp", app=admin)


class OwnerCredential(credentials.Base):
    """The emulator's `Bearer owner`, for SDK services that do not read FIREBASE_AUTH_EMULATOR_HOST themselves."""
    def get_credential(self):
        from firebase_admin import _utils
        return _utils.EmulatorAdminCredentials()


@pytest.fixture
def tenant_admin(admin, hearth_emulator, monkeypatch):
    # tenant_mgt always calls identitytoolkit.googleapis.com; point it at Hearth, as a harness would.
    from firebase_admin import tenant_mgt
    monkeypatch.setattr(tenant_mgt._TenantManagementService, "TENANT_MGT_URL",
                        f"http://{hearth_emulator.host}/identitytoolkit.googleapis.com/v2")
    app = firebase_admin.initialize_app(OwnerCredential(), {"projectId": hearth_emulator.project}, name="tenants")
    try:
        yield app
    finally:
        firebase_admin.delete_app(app)


def test_tenants_and_their_users_through_tenant_mgt(tenant_admin, hearth_emulator):
    from firebase_admin import tenant_mgt
    admin = tenant_admin
    tenant = tenant_mgt.create_tenant("Py-Tenant", allow_password_sign_up=True, app=admin)
    assert tenant.display_name == "Py-Tenant" and tenant.allow_password_sign_up
    assert tenant.tenant_id in [t.tenant_id for t in tenant_mgt.list_tenants(app=admin).tenants]
    updated = tenant_mgt.update_tenant(tenant.tenant_id, enable_email_link_sign_in=True, app=admin)
    assert updated.enable_email_link_sign_in and updated.allow_password_sign_up

    client = tenant_mgt.auth_for_tenant(tenant.tenant_id, app=admin)
    user = client.create_user(email="tenant-user@example.com", password="secret-1")
    assert user.tenant_id == tenant.tenant_id
    assert client.get_user_by_email("tenant-user@example.com").uid == user.uid
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=admin)  # the project's own pool does not hold the tenant's user
    status, signed_in = rest(hearth_emulator, "signInWithPassword", {
        "email": "tenant-user@example.com", "password": "secret-1", "tenantId": tenant.tenant_id,
        "returnSecureToken": True})
    assert status == 200, signed_in
    decoded = client.verify_id_token(signed_in["idToken"])
    assert decoded["firebase"]["tenant"] == tenant.tenant_id

    tenant_mgt.delete_tenant(tenant.tenant_id, app=admin)
    assert tenant.tenant_id not in [t.tenant_id for t in tenant_mgt.list_tenants(app=admin).tenants]
    # Deleting a tenant deletes its users. (Naming a tenant again in emulator mode brings it back empty, with every
    # sign-in method on, as the Firebase Auth Emulator does.)
    with pytest.raises(auth.UserNotFoundError):
        client.get_user(user.uid)


CERT = ("-----BEGIN CERTIFICATE-----\nMIICZjCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQ0FADBQMQswCQYDVQQGEwJ1czEL\n"
        "-----END CERTIFICATE-----")


def test_saml_provider_configs_are_kept_as_the_sdk_manages_them(admin):
    created = auth.create_saml_provider_config(
        "saml.py", idp_entity_id="IDP_ENTITY_ID", sso_url="https://example.com/login", x509_certificates=[CERT],
        rp_entity_id="RP_ENTITY_ID", callback_url="https://projectId.firebaseapp.com/__/auth/handler",
        display_name="SAML Py", enabled=True, app=admin)
    assert created.provider_id == "saml.py" and created.enabled and created.display_name == "SAML Py"
    assert created.x509_certificates == [CERT] and created.rp_entity_id == "RP_ENTITY_ID"
    updated = auth.update_saml_provider_config("saml.py", enabled=False, sso_url="https://example.com/new",
                                               app=admin)
    assert not updated.enabled and updated.sso_url == "https://example.com/new"
    assert updated.idp_entity_id == "IDP_ENTITY_ID", "fields outside the update are kept"
    assert "saml.py" in [c.provider_id for c in auth.list_saml_provider_configs(app=admin).iterate_all()]
    auth.delete_saml_provider_config("saml.py", app=admin)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_saml_provider_config("saml.py", app=admin)


def test_an_oidc_config_switched_off_keeps_its_secret_and_response_type(admin):
    auth.create_oidc_provider_config("oidc.py-code", client_id="web", issuer="https://oidc.example.com",
                                     client_secret="shh", code_response_type=True, id_token_response_type=False,
                                     enabled=True, app=admin)
    updated = auth.update_oidc_provider_config("oidc.py-code", enabled=False, app=admin)
    assert not updated.enabled and updated.client_secret == "shh" and updated.code_response_type
    assert auth.get_oidc_provider_config("oidc.py-code", app=admin).client_id == "web"
    auth.delete_oidc_provider_config("oidc.py-code", app=admin)
