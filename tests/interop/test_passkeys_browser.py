"""Passkeys end to end in a real browser: headless Chromium with WebDriver's virtual authenticator (CTAP2, internal,
resident key, user verification) enrols a passkey and signs in with it from a page on `http://localhost`, calling
Hearth's v2 methods with fetch() and handing Hearth's options to navigator.credentials as the JS SDK does. The
clientDataJSON, attestation and assertion are the browser's own."""
import base64
import http.server
import json
import threading

import pytest
import requests

from conftest import browser, free_port, needs_chromium, start

pytestmark = needs_chromium

PAGE_PORT = free_port()
ORIGIN = f"http://localhost:{PAGE_PORT}"

# Runs in the page. Binary fields arrive as standard base64 and leave as base64url, as the JS SDK sends them.
CEREMONY = """
const [base, idToken, done] = arguments;
const bytes = s => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), c => c.charCodeAt(0));
const url64 = b => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const call = async (method, body) => {
  const r = await fetch(`${base}/v2/accounts/${method}?key=k`,
                        {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  return {status: r.status, body: await r.json()};
};
try {
  const started = await call("passkeyEnrollment:start", {idToken});
  const o = started.body.credentialCreationOptions;
  const created = await navigator.credentials.create({publicKey: {
    ...o, rp: {...o.rp, name: document.title}, challenge: bytes(o.challenge),
    user: {...o.user, id: bytes(o.user.id), name: o.user.name || "user", displayName: o.user.displayName || "user"},
    excludeCredentials: (o.excludeCredentials || []).map(c => ({...c, id: bytes(c.id)})),
  }});
  const enrolled = await call("passkeyEnrollment:finalize", {idToken, name: "Chromium", authenticatorRegistrationResponse: {
    id: created.id, rawId: url64(created.rawId), type: created.type,
    response: {clientDataJSON: url64(created.response.clientDataJSON),
               attestationObject: url64(created.response.attestationObject)}}});
  const results = {enrolled, credentialId: created.id, signIns: []};
  for (let i = 0; i < 2; i++) {
    const r = (await call("passkeySignIn:start", {})).body.credentialRequestOptions;
    const got = await navigator.credentials.get({publicKey: {...r, challenge: bytes(r.challenge)}});
    results.signIns.push(await call("passkeySignIn:finalize", {authenticatorAuthenticationResponse: {
      id: got.id, rawId: url64(got.rawId), type: got.type,
      response: {clientDataJSON: url64(got.response.clientDataJSON),
                 authenticatorData: url64(got.response.authenticatorData),
                 signature: url64(got.response.signature), userHandle: url64(got.response.userHandle)}}}));
  }
  done(results);
} catch (e) {
  done({error: String(e)});
}
"""


class AppPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        page = b"<!doctype html><title>Passkey app</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    config = {"projects": [{"projectId": "passkeys-browser", "emailEnumerationProtection": False,
                            "passkeyConfig": {"rpId": "localhost", "expectedOrigins": [ORIGIN]}}]}
    yield from start("passkeys-browser", config=config)


@pytest.fixture(scope="module")
def page():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", PAGE_PORT), AppPage)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield ORIGIN
    httpd.shutdown()


def test_a_browser_enrols_and_signs_in_with_a_passkey(server, page):
    from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

    user = requests.post(f"{server.base}/v1/accounts:signUp", params={"key": "k"}, timeout=10,
                         json={"email": "browser@example.com", "password": "secret-pass-1"}).json()
    driver = browser()
    try:
        driver.get(page + "/")
        driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
            protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
            has_user_verification=True, is_user_verified=True))
        driver.set_script_timeout(30)
        result = driver.execute_async_script(CEREMONY, f"http://localhost:{server.port}", user["idToken"])
    finally:
        driver.quit()
    assert "error" not in result, result
    assert result["enrolled"]["status"] == 200, result["enrolled"]
    assert result["enrolled"]["body"]["localId"] == user["localId"]
    for signed_in in result["signIns"]:
        assert signed_in["status"] == 200, signed_in
        payload = signed_in["body"]["idToken"].split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        assert claims["user_id"] == user["localId"]
        assert claims["firebase"]["sign_in_provider"] == "passkey"
    info = requests.post(f"{server.base}/v1/accounts:lookup", params={"key": "k"}, timeout=10,
                         json={"idToken": user["idToken"]}).json()["users"][0]["passkeyInfo"]
    raw = base64.urlsafe_b64decode(result["credentialId"] + "=" * (-len(result["credentialId"]) % 4))
    assert [(i["credentialId"], i["name"]) for i in info] == [(base64.b64encode(raw).decode(), "Chromium")]
