"""Passkeys in production mode against a software authenticator (python-fido2's data classes + `cryptography`,
tests/interop/passkey_authenticator.py): enrolment and sign-in through the v2 wire as the SDK branches send it, and
the negative matrix, where every refusal answers its Firebase code and issues nothing."""
import base64
import json
import os
import time

import pytest
import requests

from conftest import start
from passkey_authenticator import FLAG, SoftAuthenticator, b64, b64url, client_data, unb64

PROJECT = "passkeys-test"
ORIGIN = "http://localhost:5173"
FINGERPRINT = ":".join(["AB"] * 32)


@pytest.fixture(scope="module")
def server():
    config = {"projects": [
        {"projectId": PROJECT, "emailEnumerationProtection": False,
         "passkeyConfig": {"rpId": "localhost", "expectedOrigins": [ORIGIN, "https://app.example.com"],
                           "appleAppIds": ["ABCDE12345.com.example.app"],
                           "androidApps": [{"packageName": "com.example.app",
                                            "sha256CertFingerprints": [FINGERPRINT]}]}},
    ]}
    yield from start(PROJECT, config=config)


def call(server, method, body, project=None):
    path = f"/v2/accounts/{method}" if method.startswith("passkey") else f"/v1/accounts:{method}"
    if project:
        path = f"/v1/projects/{project}/accounts:{method}"
    return requests.post(server.base + path, params={"key": "k"}, json=body, timeout=10)


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


def refused(response, code: str) -> dict:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"]["message"].split(" ")[0] == code, body
    assert "idToken" not in body and "refreshToken" not in body
    return body


def claims(id_token: str) -> dict:
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def new_user(server) -> dict:
    return ok(call(server, "signUp", {"email": f"u{os.urandom(6).hex()}@example.com", "password": "secret-pass-1",
                                      "returnSecureToken": True}))


def lookup(server, id_token) -> dict:
    return ok(call(server, "lookup", {"idToken": id_token}))["users"][0]


def start_enrolment(server, id_token) -> dict:
    return ok(call(server, "passkeyEnrollment:start", {"idToken": id_token}))["credentialCreationOptions"]


def enrol(server, user, authenticator=None, name="Laptop", **create) -> tuple:
    authenticator = authenticator or SoftAuthenticator(ORIGIN)
    options = start_enrolment(server, user["idToken"])
    credential, response = authenticator.create(options, **create)
    body = ok(call(server, "passkeyEnrollment:finalize",
                   {"idToken": user["idToken"], "name": name, "authenticatorRegistrationResponse": response}))
    return credential, body


def sign_in_options(server) -> dict:
    return ok(call(server, "passkeySignIn:start", {}))["credentialRequestOptions"]


def finalize_sign_in(server, assertion):
    return call(server, "passkeySignIn:finalize", {"authenticatorAuthenticationResponse": assertion})


def test_enrol_and_sign_in_as_the_sdks_do(server):
    user = new_user(server)
    options = start_enrolment(server, user["idToken"])
    assert options["rp"] == {"id": "localhost"}
    handle = unb64(options["user"]["id"])
    assert 16 <= len(handle) <= 64 and user["localId"].encode() not in handle
    assert base64.b64encode(unb64(options["challenge"])).decode() == options["challenge"]  # standard, padded
    # The time it was issued (8 bytes, microseconds since 1970, big-endian: the store keeps challenges in that
    # order), then 32 random bytes.
    challenge = unb64(options["challenge"])
    assert len(challenge) == 40 and abs(int.from_bytes(challenge[:8], "big") / 1e6 - time.time()) < 60
    assert {p["alg"] for p in options["pubKeyCredParams"]} == {-7, -257, -8}
    assert options["authenticatorSelection"]["residentKey"] == "required"

    authenticator = SoftAuthenticator(ORIGIN)
    credential, response = authenticator.create(options, fmt="packed")
    enrolled = ok(call(server, "passkeyEnrollment:finalize",
                       {"idToken": user["idToken"], "name": "Phone", "authenticatorRegistrationResponse": response}))
    assert enrolled["localId"] == user["localId"]
    assert claims(enrolled["idToken"])["firebase"]["sign_in_provider"] == "passkey"
    info = lookup(server, user["idToken"])["passkeyInfo"]
    assert [(i["credentialId"], i["name"]) for i in info] == [(b64(credential.id), "Phone")]
    assert info[0]["backedUp"] is False and "createdAt" in info[0]

    # A second enrolment is offered the first as excluded and keeps the same user handle.
    again = start_enrolment(server, user["idToken"])
    assert unb64(again["user"]["id"]) == handle
    assert [unb64(c["id"]) for c in again["excludeCredentials"]] == [credential.id]

    # Sign in, with the JS SDK's base64url and with the iOS SDK's standard base64.
    for alphabet in ["url", "std"]:
        options = sign_in_options(server)
        assert options["rpId"] == "localhost" and options["userVerification"] == "required"
        body = ok(finalize_sign_in(server, authenticator.get(options, credential, alphabet=alphabet)))
        token = claims(body["idToken"])
        assert token["user_id"] == user["localId"] and token["firebase"]["sign_in_provider"] == "passkey"
        refreshed = requests.post(f"{server.base}/v1/token", params={"key": "k"}, timeout=10,
                                  data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]})
        assert refreshed.status_code == 200, refreshed.text
    after = lookup(server, user["idToken"])
    assert after["passkeyInfo"][0]["lastUsedAt"] and after["lastLoginAt"]


def test_enrolment_refusals_issue_nothing(server):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)

    def attempt(code, *, body=None, **create):
        options = start_enrolment(server, user["idToken"])
        _, response = authenticator.create(options, **create)
        refused(call(server, "passkeyEnrollment:finalize",
                     body or {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}), code)

    attempt("INVALID_AUTHENTICATOR_RESPONSE", origin="https://evil.example.com")
    attempt("INVALID_AUTHENTICATOR_RESPONSE", origin="http://localhost:9999")
    attempt("INVALID_AUTHENTICATOR_RESPONSE", rp_id="example.com")
    attempt("INVALID_AUTHENTICATOR_RESPONSE", kind="webauthn.get")
    attempt("INVALID_AUTHENTICATOR_RESPONSE", flags=FLAG.UP)  # no user verification
    attempt("INVALID_AUTHENTICATOR_RESPONSE", flags=FLAG.UV)  # no user presence

    # A garbage attestation object, a response without its parts.
    options = start_enrolment(server, user["idToken"])
    _, response = authenticator.create(options)
    response["response"]["attestationObject"] = b64url(b"\xa1\x63fmt\x64none")
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": user["idToken"], "authenticatorRegistrationResponse": {"id": "abc"}}),
            "INVALID_AUTHENTICATOR_RESPONSE")

    # Challenges: one never issued, one used already, one issued to someone else, one issued for a sign-in.
    fake = {"rp": {"id": "localhost"}, "user": {"id": b64(os.urandom(32))}, "challenge": b64(os.urandom(32))}
    _, response = authenticator.create(fake)
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}),
            "PASSKEY_CHALLENGE_TIMEOUT")
    other = new_user(server)
    _, response = authenticator.create(start_enrolment(server, other["idToken"]))
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}),
            "PASSKEY_CHALLENGE_TIMEOUT")
    _, response = authenticator.create({**fake, "challenge": sign_in_options(server)["challenge"]})
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}),
            "PASSKEY_CHALLENGE_TIMEOUT")

    # The token: absent, forged.
    refused(call(server, "passkeyEnrollment:start", {}), "MISSING_ID_TOKEN")
    refused(call(server, "passkeyEnrollment:start", {"idToken": "not-a-token"}), "INVALID_ID_TOKEN")
    assert "passkeyInfo" not in lookup(server, user["idToken"])

    # The same response twice: the first enrols, the second finds its challenge used.
    options = start_enrolment(server, user["idToken"])
    credential, response = authenticator.create(options)
    body = {"idToken": user["idToken"], "authenticatorRegistrationResponse": response}
    ok(call(server, "passkeyEnrollment:finalize", body))
    refused(call(server, "passkeyEnrollment:finalize", body), "PASSKEY_CHALLENGE_TIMEOUT")
    assert len(lookup(server, user["idToken"])["passkeyInfo"]) == 1


def test_a_credential_id_belongs_to_one_user(server):
    first, second = new_user(server), new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(server, first, authenticator)
    # A response naming an id other than the one its authenticator data carries.
    _, response = authenticator.create(start_enrolment(server, second["idToken"]))
    response["id"] = response["rawId"] = b64url(credential.id)
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": second["idToken"], "authenticatorRegistrationResponse": response}),
            "INVALID_AUTHENTICATOR_RESPONSE")
    # A genuine registration of an id another user has (a re-used or copied authenticator).
    _, response = authenticator.create(start_enrolment(server, second["idToken"]), credential_id=credential.id)
    refused(call(server, "passkeyEnrollment:finalize",
                 {"idToken": second["idToken"], "authenticatorRegistrationResponse": response}), "PASSKEY_EXISTS")
    assert "passkeyInfo" not in lookup(server, second["idToken"])


def test_sign_in_refusals_issue_nothing(server):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(server, user, authenticator)

    refused(finalize_sign_in(server, None), "MISSING_AUTHENTICATOR_RESPONSE")
    stranger = SoftAuthenticator(ORIGIN).create(
        {"rp": {"id": "localhost"}, "user": {"id": b64(os.urandom(32))}, "challenge": b64(os.urandom(32))})[0]
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), stranger)), "USER_NOT_FOUND")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, tamper=True)),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential,
                                                       user_handle=user["localId"].encode())),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, origin="https://evil.test")),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, rp_id="example.com")),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, flags=FLAG.UP)),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, kind="webauthn.create")),
            "INVALID_AUTHENTICATOR_RESPONSE")
    # A challenge never issued; an enrolment's challenge.
    refused(finalize_sign_in(server, authenticator.get({"challenge": b64(os.urandom(32))}, credential)),
            "PASSKEY_CHALLENGE_TIMEOUT")
    refused(finalize_sign_in(server, authenticator.get(start_enrolment(server, user["idToken"]), credential)),
            "PASSKEY_CHALLENGE_TIMEOUT")

    # One good sign-in; replaying it finds the challenge used.
    assertion = authenticator.get(sign_in_options(server), credential, counter=10)
    ok(finalize_sign_in(server, assertion))
    refused(finalize_sign_in(server, assertion), "PASSKEY_CHALLENGE_TIMEOUT")
    # A device-bound credential whose counter does not move forward: a possible clone.
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=10)),
            "INVALID_AUTHENTICATOR_RESPONSE")
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=3)),
            "INVALID_AUTHENTICATOR_RESPONSE")
    ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=11)))

    # A disabled user (by the operator, beside the running server).
    server.cli("users", "disable", user["localId"])
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential)), "USER_DISABLED")


def test_synced_passkeys_sign_in_whatever_their_counter_and_backup_flags(server):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(server, user, authenticator, backup_eligible=True)
    for flags in [FLAG.UP | FLAG.UV | FLAG.BE | FLAG.BS, FLAG.UP | FLAG.UV | FLAG.BE, FLAG.UP | FLAG.UV | FLAG.BE]:
        ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=0, flags=flags)))
    info = lookup(server, user["idToken"])["passkeyInfo"][0]
    assert info["backedUp"] is False  # the last assertion's BS flag


def test_delete_passkey(server):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    first, _ = enrol(server, user, authenticator, name="A")
    second, _ = enrol(server, user, authenticator, name="B")
    refused(call(server, "update", {"idToken": user["idToken"], "deletePasskey": [b64(os.urandom(20))]}),
            "PASSKEY_ENROLLMENT_NOT_FOUND")
    # Either alphabet names the same bytes.
    ok(call(server, "update", {"idToken": user["idToken"], "deletePasskey": [b64url(first.id)]}))
    assert [i["name"] for i in lookup(server, user["idToken"])["passkeyInfo"]] == ["B"]
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), first)), "USER_NOT_FOUND")
    ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), second)))


def test_the_last_way_to_sign_in_is_kept(server):
    anonymous = ok(call(server, "signUp", {"returnSecureToken": True}))
    credential, _ = enrol(server, anonymous, name="Only key")
    refused(call(server, "update", {"idToken": anonymous["idToken"], "deletePasskey": [b64(credential.id)]}),
            "LAST_SIGN_IN_METHOD")
    assert len(lookup(server, anonymous["idToken"])["passkeyInfo"]) == 1


def test_the_per_user_limit(server):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    for n in range(10):
        enrol(server, user, authenticator, name=f"key {n}")
    refused(call(server, "passkeyEnrollment:start", {"idToken": user["idToken"]}), "PASSKEY_LIMIT_EXCEEDED")


@pytest.fixture(scope="module")
def unconfigured():
    yield from start("passkeys-off")


def test_passkeys_are_off_until_configured(unconfigured):
    user = ok(call(unconfigured, "signUp", {"returnSecureToken": True}))
    refused(call(unconfigured, "passkeyEnrollment:start", {"idToken": user["idToken"]}), "PASSKEY_NOT_ENABLED")
    refused(call(unconfigured, "passkeyEnrollment:finalize", {"idToken": user["idToken"]}), "PASSKEY_NOT_ENABLED")
    refused(call(unconfigured, "passkeySignIn:start", {}), "PASSKEY_NOT_ENABLED")
    refused(call(unconfigured, "passkeySignIn:finalize", {}), "PASSKEY_NOT_ENABLED")


def test_export_and_import_keep_a_passkey_usable(server, tmp_path):
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(server, user, authenticator, name="Exported")
    ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=5)))
    path = str(tmp_path / "users.json")
    server.cli("users", "export", path)
    with open(path) as f:
        entry = next(u for u in json.load(f)["users"] if u["localId"] == user["localId"])
    exported = entry["passkeyInfo"][0]
    assert exported["credentialId"] == b64(credential.id) and exported["name"] == "Exported"
    assert exported["signCount"] == 5 and exported["publicKey"] and exported["userHandle"]

    server.cli("users", "delete", user["localId"])
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential)), "USER_NOT_FOUND")
    with open(path, "w") as f:
        json.dump({"users": [entry]}, f)
    server.cli("users", "import", path)
    # The imported counter still guards against a clone; the credential signs in again.
    refused(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=5)),
            "INVALID_AUTHENTICATOR_RESPONSE")
    body = ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential, counter=6)))
    assert claims(body["idToken"])["user_id"] == user["localId"]


def admin_headers(server, name) -> dict:
    from google.auth.transport import requests as google_requests
    from google.oauth2 import service_account
    creds = service_account.Credentials.from_service_account_file(
        server.service_account(name), scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google_requests.Request())
    return {"Authorization": f"Bearer {creds.token}"}


def test_passkey_config_is_set_per_project_and_tenant(unconfigured):
    admin = admin_headers(unconfigured, "passkey-admin")
    config_url = f"{unconfigured.base}/v2/projects/passkeys-off/passkeyConfig"
    got = requests.get(config_url, headers=admin, timeout=10).json()
    assert got == {"name": "projects/passkeys-off/passkeyConfig", "rpId": "", "expectedOrigins": []}
    assert requests.get(config_url, params={"key": "k"}, timeout=10).status_code == 401  # admins only

    for origins in [["http://example.com"], ["ftp://example.com"], ["https://example.com/path"],
                    ["android:apk-key-hash:tooshort"], ["https://"], [7]]:
        bad = requests.patch(config_url, headers=admin, timeout=10, json={"rpId": "localhost", "expectedOrigins": origins})
        assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("INVALID_CONFIG"), (origins, bad.text)
    bad = requests.patch(config_url, headers=admin, timeout=10, json={"rpId": "https://example.com"})
    assert bad.status_code == 400, bad.text
    assert requests.get(config_url, headers=admin, timeout=10).json()["rpId"] == ""  # nothing stored half-way

    apk = "android:apk-key-hash:" + b64url(os.urandom(32))
    done = requests.patch(config_url, headers=admin, params={"updateMask": "rpId,expectedOrigins"}, timeout=10,
                          json={"rpId": "localhost", "expectedOrigins": [ORIGIN, "https://app.example.com:8443", apk]})
    assert done.status_code == 200, done.text
    assert done.json()["expectedOrigins"] == [ORIGIN, "https://app.example.com:8443", apk]
    # A mask naming one field leaves the other.
    requests.patch(config_url, headers=admin, params={"updateMask": "rpId"}, timeout=10,
                   json={"rpId": "localhost", "expectedOrigins": []}).raise_for_status()
    assert len(requests.get(config_url, headers=admin, timeout=10).json()["expectedOrigins"]) == 3

    user = ok(call(unconfigured, "signUp", {"returnSecureToken": True}))
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(unconfigured, user, authenticator)

    # A tenant has its own relying party and its own credentials.
    tenant = requests.post(f"{unconfigured.base}/v2/projects/passkeys-off/tenants", headers=admin, timeout=10,
                           json={"displayName": "passkeys", "allowPasswordSignup": True})
    assert tenant.ok, tenant.text
    tenant_id = tenant.json()["name"].split("/")[-1]
    tenant_url = f"{unconfigured.base}/v2/projects/passkeys-off/tenants/{tenant_id}/passkeyConfig"
    refused(call(unconfigured, "passkeySignIn:start", {"tenantId": tenant_id}), "PASSKEY_NOT_ENABLED")
    requests.patch(tenant_url, headers=admin, timeout=10,
                   json={"rpId": "localhost", "expectedOrigins": [ORIGIN]}).raise_for_status()
    assert requests.get(tenant_url, headers=admin, timeout=10).json()["name"] == \
        f"projects/passkeys-off/tenants/{tenant_id}/passkeyConfig"
    tenant_user = ok(call(unconfigured, "signUp", {"tenantId": tenant_id, "email": "t@example.com",
                                                   "password": "secret-pass-1", "returnSecureToken": True}))
    tenant_credential, _ = enrol(unconfigured, tenant_user, authenticator)
    options = ok(call(unconfigured, "passkeySignIn:start", {"tenantId": tenant_id}))["credentialRequestOptions"]
    body = ok(call(unconfigured, "passkeySignIn:finalize",
                   {"tenantId": tenant_id, "authenticatorAuthenticationResponse":
                    authenticator.get(options, tenant_credential)}))
    assert claims(body["idToken"])["firebase"]["tenant"] == tenant_id
    # The tenant's credential is unknown to the project, the project's to the tenant, and challenges stay apart.
    refused(finalize_sign_in(unconfigured, authenticator.get(sign_in_options(unconfigured), tenant_credential)),
            "USER_NOT_FOUND")
    options = ok(call(unconfigured, "passkeySignIn:start", {"tenantId": tenant_id}))["credentialRequestOptions"]
    refused(call(unconfigured, "passkeySignIn:finalize",
                 {"tenantId": tenant_id, "authenticatorAuthenticationResponse": authenticator.get(options, credential)}),
            "USER_NOT_FOUND")
    refused(finalize_sign_in(unconfigured, authenticator.get(options, tenant_credential)), "PASSKEY_CHALLENGE_TIMEOUT")


def test_one_assertion_sent_many_times_at_once_signs_in_once(server):
    import concurrent.futures
    user = new_user(server)
    authenticator = SoftAuthenticator(ORIGIN)
    credential, _ = enrol(server, user, authenticator)
    assertion = authenticator.get(sign_in_options(server), credential)
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        answers = list(pool.map(lambda _: finalize_sign_in(server, assertion), range(64)))
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200] + [400] * 63, statuses
    assert {r.json()["error"]["message"] for r in answers if r.status_code == 400} == {"PASSKEY_CHALLENGE_TIMEOUT"}
    # The server keeps serving: the next ceremony works.
    ok(finalize_sign_in(server, authenticator.get(sign_in_options(server), credential)))


def test_association_files_list_the_configured_apps(server, unconfigured):
    def get(host, path):
        return requests.get(f"{host.base}/.well-known/{path}", timeout=10)
    assert get(server, "webauthn").json() == {"origins": ["https://app.example.com"]}
    assert get(server, "apple-app-site-association").json() == {
        "webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}
    links = get(server, "assetlinks.json")
    assert links.headers["Content-Type"].startswith("application/json")
    assert links.json() == [{"relation": ["delegate_permission/common.get_login_creds"],
                             "target": {"namespace": "android_app", "package_name": "com.example.app",
                                        "sha256_cert_fingerprints": [FINGERPRINT]}}]
    # A run-time change of the relying party keeps the apps, which only the config file sets.
    admin = admin_headers(server, "association-admin")
    requests.patch(f"{server.base}/v2/projects/{PROJECT}/passkeyConfig", headers=admin, timeout=10,
                   params={"updateMask": "expectedOrigins"},
                   json={"expectedOrigins": [ORIGIN, "https://app.example.com", "https://login.example.com"]}
                   ).raise_for_status()
    assert get(server, "webauthn").json()["origins"] == ["https://app.example.com", "https://login.example.com"]
    assert get(server, "apple-app-site-association").status_code == 200
    # Nothing configured, nothing served.
    for path in ["apple-app-site-association", "assetlinks.json"]:
        assert get(unconfigured, path).status_code == 404
