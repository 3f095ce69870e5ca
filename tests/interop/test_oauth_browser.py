"""A browser sign-in as a user does it: headless Chromium opens Hearth's auth handler, is sent to a GitHub-shaped
OAuth provider (oauth_provider.py: a consent page, a token endpoint checking the client secret and PKCE
S256, /user and /user/emails), clicks Allow, comes back through the handler to the app's page on an authorized
domain, and the app finishes with accounts:signInWithIdp. Everything stays on 127.0.0.1."""
import hashlib
import json
import secrets
import urllib.parse

import pytest
import requests

from conftest import browser, free_port, needs_chromium, start
from oauth_provider import CLIENT_ID, CLIENT_SECRET, Provider

pytestmark = needs_chromium

API_KEY = "browser-oauth-key"


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
