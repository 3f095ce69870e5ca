"""A browser sign-in as a user does it: headless Chromium opens Hearth's auth handler, is sent to a GitHub-shaped
OAuth provider (a small server in this file: a consent page, a token endpoint checking the client secret and PKCE
S256, /user and /user/emails), clicks Allow, comes back through the handler to the app's page on an authorized
domain, and the app finishes with accounts:signInWithIdp. Everything stays on 127.0.0.1."""
import base64
import hashlib
import html
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from conftest import browser, free_port, needs_chromium, start

pytestmark = needs_chromium

CLIENT_ID = "gh-browser-client"
CLIENT_SECRET = "gh-browser-secret"
API_KEY = "browser-oauth-key"


class Provider:
    """GitHub's OAuth endpoints, enough of them: codes bound to the PKCE challenge, used once."""

    def __init__(self):
        self.codes = {}
        self.tokens = {}
        self.authorize_queries = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.port = self.server.server_address[1]
        # The app's page lives on "localhost", a domain the project authorizes by default.
        self.app_page = f"http://localhost:{self.port}/app"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body, content_type="application/json", headers=()):
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/login/oauth/authorize":
                    provider.authorize_queries.append(query)
                    fields = "".join(
                        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                        for k, v in query.items())
                    page = (f"<!doctype html><title>Authorize</title><form method=get action=/approve>{fields}"
                            f'<button id="approve" type="submit">Authorize Hearth</button></form>')
                    return self.send(200, page, "text/html")
                if url.path == "/approve":
                    code = secrets.token_urlsafe(16)
                    provider.codes[code] = query
                    target = query["redirect_uri"] + "?" + urllib.parse.urlencode(
                        {"code": code, "state": query["state"]})
                    return self.send(302, "", "text/plain", [("Location", target)])
                if url.path in ("/user", "/user/emails"):
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    if token not in provider.tokens:
                        return self.send(401, {"message": "Bad credentials"})
                    if url.path == "/user":
                        return self.send(200, {"id": 4242, "login": "octo", "name": "Octo Browser", "email": None,
                                               "avatar_url": "https://avatars.example/4242"})
                    return self.send(200, [{"email": "octo@example.com", "primary": True, "verified": True}])
                if url.path == "/app":
                    return self.send(200, "<!doctype html><title>App</title><p id=done>Signed in</p>", "text/html")
                self.send(404, {"error": "not_found"})

            def do_POST(self):
                form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers["Content-Length"])).decode()))
                if self.path != "/login/oauth/access_token":
                    return self.send(404, {"error": "not_found"})
                grant = provider.codes.pop(form.get("code"), None)
                if form.get("client_secret") != CLIENT_SECRET:
                    return self.send(401, {"error": "invalid_client"})
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if (grant is None or grant["client_id"] != form.get("client_id")
                        or grant["redirect_uri"] != form.get("redirect_uri") or grant["code_challenge"] != challenge):
                    # GitHub answers a bad code with 200 and an error.
                    return self.send(200, {"error": "bad_verification_code"})
                token = secrets.token_urlsafe(16)
                provider.tokens[token] = True
                self.send(200, {"access_token": token, "token_type": "bearer", "scope": grant["scope"]})

        return Handler

    def stop(self):
        self.server.shutdown()


@pytest.fixture
def provider():
    p = Provider()
    yield p
    p.stop()


@pytest.fixture
def oauth_hearth(provider):
    base = f"http://127.0.0.1:{provider.port}"
    port = free_port()
    config = {
        "publicURL": f"http://127.0.0.1:{port}",
        "projects": [{
            "projectId": "oauth-browser", "apiKeys": [API_KEY],
            "rateLimits": {"signUpsPerIPPerHour": 0},
            "federation": {"oauth": {"github.com": {
                "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                "authorizationUrl": base + "/login/oauth/authorize", "tokenUrl": base + "/login/oauth/access_token",
                "userInfoUrl": base + "/user", "emailsUrl": base + "/user/emails"}}},
        }],
    }
    yield from start("oauth-browser", config=config, port=port)


def test_a_user_signs_in_with_github_through_the_browser(provider, oauth_hearth):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    session_id = secrets.token_urlsafe(20)
    handler = f"{oauth_hearth.base}/__/auth/handler?" + urllib.parse.urlencode({
        "apiKey": API_KEY, "authType": "signInWithRedirect", "providerId": "github.com",
        "sessionId": hashlib.sha256(session_id.encode()).hexdigest(), "eventId": "e1",
        "redirectUrl": provider.app_page, "scopes": "repo", "customParameters": json.dumps({"allow_signup": "false"}),
    }, quote_via=urllib.parse.quote)  # %20 for a space, as HearthAuth encodes it (Hearth reads `+` literally)
    driver = browser()
    try:
        driver.get(handler)
        wait = WebDriverWait(driver, 20)
        try:
            wait.until(expected_conditions.element_to_be_clickable((By.ID, "approve"))).click()
        except Exception:
            raise AssertionError(f"no consent page at {driver.current_url}: {driver.page_source[:800]}")
        wait.until(expected_conditions.presence_of_element_located((By.ID, "done")))
        landed = driver.current_url
    finally:
        driver.quit()

    asked = provider.authorize_queries[-1]
    assert asked["client_id"] == CLIENT_ID
    assert asked["redirect_uri"] == f"{oauth_hearth.base}/__/auth/handler"
    assert asked["scope"] == "read:user user:email repo"
    assert asked["code_challenge_method"] == "S256"
    assert asked["allow_signup"] == "false"

    assert landed.startswith(provider.app_page + "?")
    deep_link = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(landed).query))["deep_link_id"]
    link = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(deep_link).query))["link"]

    def sign_in(session):
        return requests.post(f"{oauth_hearth.base}/v1/accounts:signInWithIdp", params={"key": API_KEY}, timeout=10,
                             json={"requestUri": link, "sessionId": session, "returnSecureToken": True,
                                   "returnIdpCredential": True})

    wrong = sign_in("not-the-session")
    assert wrong.status_code == 400 and "INVALID_IDP_RESPONSE" in wrong.text
    done = sign_in(session_id)
    assert done.status_code == 200, done.text
    answer = done.json()
    assert answer["providerId"] == "github.com"
    assert answer["email"] == "octo@example.com" and answer["emailVerified"] is True
    assert answer["displayName"] == "Octo Browser"
    assert answer["idToken"] and answer["oauthAccessToken"]
    replay = sign_in(session_id)
    assert replay.status_code == 400
