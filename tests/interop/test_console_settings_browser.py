"""The console's Settings page in headless Chromium: an admin changes run-time settings (an authorized domain, a
test phone number, enumeration protection, MFA, passkeys, a tenant's e-mail link sign-in, an identity provider's
client id and secret) and reads each back through the admin API (`GET /v2/projects/{p}/config`, …/tenants/{t},
…/passkeyConfig, …/defaultSupportedIdpConfigs) with a service account's bearer; each save is in the audit log with
its diff, secrets redacted and never in a page; invalid input answers 400 with the API's own error and stores
nothing; a viewer and a form from another origin change nothing; "Send test e-mail" arrives at a real SMTP server
(aiosmtpd). The tenant picker also scopes the Users page: a tenant's user found, disabled and their events read.
axe-core finds no violation at 360 and 1280 px; screenshots go to $HEARTH_TEST_OUTPUT/console."""
import glob
import json
import os
import time

import pytest
import requests
from google.auth.transport import requests as google_requests
from google.oauth2 import service_account
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import free_port, needs_chromium, run_smtp_sink, start
from test_console_browser import ADMIN, PASSWORD, viewer_session, Pages, output, signed_in  # noqa: F401 (fixtures)

pytestmark = needs_chromium

PROJECT = "settings-test"
SECRET = "initial-client-SECRET-1"


@pytest.fixture(scope="module")
def smtp_sink():
    """aiosmtpd without TLS or AUTH; yields (port, directory of received messages)."""
    with run_smtp_sink("plain") as sink:
        yield sink


@pytest.fixture(scope="module")
def server(smtp_sink):
    """`hearth serve` mailing through the sink."""
    config = {
        "email": {"provider": "smtp", "smtp": {"host": "127.0.0.1", "port": smtp_sink[0], "security": "none",
                                               "from": "noreply@settings.test", "fromName": "Hearth"}},
        "projects": [{"projectId": PROJECT, "authorizedDomains": ["localhost"]}],
    }
    yield from start(PROJECT, config=config, port=free_port())


@pytest.fixture(scope="module")
def population(server):
    """The console's sign-in fixture asks for users; the settings need none."""
    return None


@pytest.fixture(scope="module")
def api(server):
    """The admin API with a service account's bearer: (method, path, json) → response."""
    creds = service_account.Credentials.from_service_account_file(
        server.service_account("settings"), scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google_requests.Request())

    def call(method, path, body=None, **params):
        base = server.base if path.startswith("/v1/") else f"{server.base}/v2/projects/{PROJECT}"
        return requests.request(method, base + path, json=body, params=params,
                                headers={"Authorization": f"Bearer {creds.token}"}, timeout=10)
    return call


def config(api):
    reply = api("GET", "/config")
    assert reply.status_code == 200, reply.text
    return reply.json()


def post_form(server, pages, data, origin=None):
    """The settings form posted by hand with this browser's cookie and token (and the console's Origin)."""
    driver = pages.driver
    driver.get(f"{server.admin_base}/console/settings")
    csrf = driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    return requests.post(f"{server.admin_base}/console/settings", data={"csrf": csrf, **data}, cookies=cookies,
                         headers={"Origin": origin or server.admin_base}, allow_redirects=False, timeout=10)


def audit_rows(server, pages, action):
    pages.driver.get(f"{server.admin_base}/console/audit?action={action}")
    return [row.text for row in pages.driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")]


def test_project_settings_saved_through_the_config_api(server, signed_in, api):
    pages, _ = signed_in
    driver = pages.driver
    driver.get(f"{server.admin_base}/console/settings")
    pages.check("settings")
    assert driver.find_element(By.LINK_TEXT, "Settings").is_displayed()

    pages.fill("authorizedDomains", "localhost\nconsole-added.example")
    pages.click("save-domains")
    assert pages.text("notice") == "Authorized domains saved."
    assert config(api)["authorizedDomains"] == ["localhost", "console-added.example"]

    pages.fill("testPhoneNumbers", "+16505553434 = 123456")
    pages.click("save-test-phones")
    assert config(api)["signIn"]["phoneNumber"]["testPhoneNumbers"] == {"+16505553434": "123456"}

    driver.find_element(By.ID, "enableImprovedEmailPrivacy").click()
    before = config(api)["emailPrivacyConfig"]["enableImprovedEmailPrivacy"]
    pages.click("save-privacy")
    assert config(api)["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is (not before)

    Select(driver.find_element(By.ID, "state")).select_by_value("ENABLED")
    if not driver.find_element(By.ID, "totp").is_selected():
        driver.find_element(By.ID, "totp").click()
    pages.fill("adjacentIntervals", "3")
    pages.click("save-mfa")
    mfa = config(api)["mfa"]
    assert mfa["state"] == "ENABLED"
    assert mfa["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 3

    pages.fill("rpId", "console-added.example")
    pages.fill("expectedOrigins", "https://console-added.example")
    pages.click("save-passkeys")
    passkeys = api("GET", "/passkeyConfig").json()
    assert passkeys["rpId"] == "console-added.example"
    assert passkeys["expectedOrigins"] == ["https://console-added.example"]

    Select(driver.find_element(By.ID, "regionMode")).select_by_value("allowlistOnly")
    pages.fill("regions", "US, kr")
    pages.click("save-sms-regions")
    assert config(api)["smsRegionConfig"] == {"allowlistOnly": {"allowedRegions": ["US", "KR"]}}

    driver.find_element(By.ID, "allowDuplicateEmails").click()
    pages.click("save-sign-in")
    assert config(api)["signIn"]["allowDuplicateEmails"] is True

    pages.fill("beforeCreate", "http://127.0.0.1:9/before-create")
    pages.click("save-blocking")
    assert config(api)["blockingFunctions"]["triggers"]["beforeCreate"]["functionUri"] == "http://127.0.0.1:9/before-create"
    pages.check("settings-saved")

    # Each save is one event by this admin, with what changed.
    events = audit_rows(server, pages, "project.update")
    assert len(events) == 7 and all(ADMIN in row for row in events), events
    assert any("console-added.example" in row and "authorizedDomains" in row for row in events), events
    assert len(audit_rows(server, pages, "passkeyConfig.update")) == 1


@pytest.mark.parametrize("data, error", [
    ({"section": "domains", "authorizedDomains": "localhost\nhttps://bad.example/path"}, "is not a domain name"),
    ({"section": "testPhones", "testPhoneNumbers": "555-1234 = 123456"}, "INVALID_TESTING_PHONE_NUMBER"),
    ({"section": "testPhones", "testPhoneNumbers": "+16505550000 = 12"}, "INVALID_TESTING_PHONE_NUMBER"),
    ({"section": "blocking", "beforeCreate": "ftp://functions.example/x"}, "INVALID_BLOCKING_FUNCTION"),
    ({"section": "passkeys", "rpId": "https://example.com", "expectedOrigins": ""}, "INVALID_CONFIG"),
])
def test_invalid_input_is_refused_with_the_apis_error_and_nothing_is_saved(server, signed_in, api, data, error):
    pages, _ = signed_in
    stored = config(api)
    passkeys = api("GET", "/passkeyConfig").json()
    reply = post_form(server, pages, data)
    assert reply.status_code == 400 and error in reply.text, reply.text
    assert 'id="error"' in reply.text and "<form" in reply.text
    assert config(api) == stored and api("GET", "/passkeyConfig").json() == passkeys


def test_the_error_page_passes_axe(server, signed_in):
    pages, _ = signed_in
    pages.driver.get(f"{server.admin_base}/console/settings")
    pages.fill("authorizedDomains", "not a domain")
    pages.click("save-domains")
    assert "is not a domain name" in pages.text("error")
    pages.check("settings-error")


def test_a_tenants_settings_through_the_picker(server, signed_in, api):
    pages, _ = signed_in
    driver = pages.driver
    made = api("POST", "/tenants", {"displayName": "shop"})
    assert made.status_code == 200, made.text
    tenant = made.json()["tenantId"]
    assert made.json()["enableEmailLinkSignin"] is False

    driver.get(f"{server.admin_base}/console/settings")
    Select(driver.find_element(By.ID, "tenant")).select_by_value(tenant)
    pages.click("show-tenant")
    assert driver.current_url.endswith(f"/console/settings?tenant={tenant}")
    assert driver.find_element(By.TAG_NAME, "h1").text == f"Settings of tenant {tenant}"
    pages.check("settings-tenant")
    driver.find_element(By.ID, "enableEmailLinkSignin").click()
    pages.click("save-sign-in")
    assert pages.text("notice") == "Sign-in settings saved."
    assert api("GET", f"/tenants/{tenant}").json()["enableEmailLinkSignin"] is True

    pages.fill("testPhoneNumbers", "+16505550199 = 654321")
    pages.click("save-test-phones")
    assert api("GET", f"/tenants/{tenant}").json()["testPhoneNumbers"] == {"+16505550199": "654321"}

    events = audit_rows(server, pages, "tenant.update")
    assert len(events) == 2 and all(ADMIN in row for row in events), events
    assert any("enableEmailLinkSignin" in row for row in events), events

    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    unknown = requests.get(f"{server.admin_base}/console/settings", params={"tenant": "no-such-tenant"},
                           cookies=cookies, timeout=10)
    assert unknown.status_code == 404 and "TENANT_NOT_FOUND" in unknown.text


def test_a_tenants_users_through_the_picker(server, signed_in, api):
    """The Users page's picker searches a tenant's users; their page's actions act in that tenant."""
    pages, _ = signed_in
    driver = pages.driver
    tenant = api("POST", "/tenants", {"displayName": "users-shop"}).json()["tenantId"]
    accounts = f"/v1/projects/{PROJECT}/tenants/{tenant}/accounts"
    made = api("POST", accounts, {"email": "tenant.user@settings.test", "password": "tenant-password-1"})
    assert made.status_code == 200, made.text
    uid = made.json()["localId"]

    driver.get(f"{server.admin_base}/console/users")
    pages.fill("q", "tenant.user")
    pages.click("search")
    assert driver.find_elements(By.CSS_SELECTOR, "#users tbody tr") == []
    Select(driver.find_element(By.ID, "tenant")).select_by_value(tenant)
    pages.click("search")
    rows = driver.find_elements(By.CSS_SELECTOR, "#users tbody tr")
    assert len(rows) == 1 and "tenant.user@settings.test" in rows[0].text
    pages.check("users-tenant")
    driver.find_element(By.LINK_TEXT, uid).click()
    assert driver.current_url.endswith(f"/console/users/{uid}?tenant={tenant}")
    pages.click("disable")
    assert pages.text("notice").startswith("Account disabled") and pages.text("status") == "Disabled"
    looked_up = api("POST", f"{accounts}:lookup", {"localId": [uid]}).json()["users"][0]
    assert looked_up["disabled"] is True
    # The user's events, in the tenant's log, link back to the tenant's user.
    driver.find_element(By.LINK_TEXT, "All of this user's events in the audit log").click()
    WebDriverWait(driver, 10).until(lambda d: "/console/audit" in d.current_url)
    events = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")]
    assert any("user.disable" in row and ADMIN in row for row in events), events
    link = driver.find_elements(By.LINK_TEXT, uid)[0].get_attribute("href")
    assert link.endswith(f"/console/users/{uid}?tenant={tenant}")

    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    # The same uid is no user of the project's own pool.
    project_page = requests.get(f"{server.admin_base}/console/users/{uid}", cookies=cookies, timeout=10)
    assert project_page.status_code == 400 and "USER_NOT_FOUND" in project_page.text


def test_a_provider_secret_is_write_only_and_needs_the_code(server, signed_in, api):
    pages, totp = signed_in
    driver = pages.driver
    made = api("POST", "/defaultSupportedIdpConfigs", {"clientId": "first-client", "clientSecret": SECRET,
                                                       "enabled": True}, idpId="google.com")
    assert made.status_code == 200, made.text

    def stored():
        reply = api("GET", "/defaultSupportedIdpConfigs/google.com")
        assert reply.status_code == 200, reply.text
        return reply.json()

    driver.get(f"{server.admin_base}/console/settings")
    assert SECRET not in driver.page_source
    pages.fill("client-id-google-com", "second-client")
    pages.click("save-provider-google-com")
    assert pages.text("notice") == "Identity provider saved."
    assert stored()["clientId"] == "second-client" and stored()["clientSecret"] == SECRET

    # A new secret with a wrong code changes nothing.
    pages.fill("client-secret-google-com", "second-client-SECRET-2")
    pages.fill("code-google-com", "000000" if totp.now() != "000000" else "111111")
    pages.click("save-provider-google-com")
    assert "INVALID_CODE" in pages.text("error")
    assert stored()["clientSecret"] == SECRET
    assert "second-client-SECRET-2" not in driver.page_source
    # With a fresh code (the next step's: the setup spent this one) it is saved, and still never shown.
    pages.fill("client-secret-google-com", "second-client-SECRET-2")
    pages.fill("code-google-com", totp.at(int(time.time()) + 30))
    pages.click("save-provider-google-com")
    assert pages.text("notice") == "Identity provider saved."
    assert stored()["clientSecret"] == "second-client-SECRET-2"
    assert "second-client-SECRET-2" not in driver.page_source and SECRET not in driver.page_source

    events = audit_rows(server, pages, "provider.update")
    assert len(events) == 2 and all(ADMIN in row for row in events), events
    assert "[redacted]" in events[0]
    assert "SECRET" not in driver.page_source


def test_send_test_email_arrives_at_the_smtp_server(server, signed_in, smtp_sink):
    pages, _ = signed_in
    driver = pages.driver
    driver.get(f"{server.admin_base}/console/settings")
    preview = driver.find_element(By.ID, "preview-passwordReset")
    assert "Reset your password for Hearth" in preview.text
    assert driver.find_element(By.ID, "sms-preview").text == "123456 is your verification code for Hearth."
    Select(driver.find_element(By.ID, "template")).select_by_value("passwordReset")
    pages.fill("to", "someone@settings.test")
    pages.click("save-test-email")
    assert pages.text("notice") == "Test e-mail sent."

    deadline = time.time() + 10
    files = []
    while time.time() < deadline and not files:
        files = sorted(glob.glob(os.path.join(smtp_sink[1], "[0-9]*.json")))
        time.sleep(0.1)
    assert files, "no e-mail arrived"
    with open(files[-1]) as f:
        mail = json.load(f)
    assert mail["rcptTos"] == ["someone@settings.test"]
    assert mail["headers"]["Subject"] == "[Test] Reset your password for Hearth"
    assert "oobCode=sample-code" in mail["text"]

    events = audit_rows(server, pages, "settings.testEmail")
    assert len(events) == 1 and ADMIN in events[0] and "someone@settings.test" in events[0], events


def test_a_viewer_and_a_foreign_form_change_nothing(server, signed_in, api):
    pages, _ = signed_in
    stored = config(api)

    session, csrf = viewer_session(server, "viewer@settings.test")
    page = session.get(f"{server.admin_base}/console/settings", timeout=10)
    assert page.status_code == 200 and 'id="authorizedDomains"' in page.text
    assert '<form method="post" action="/console/settings"' not in page.text
    refused = session.post(f"{server.admin_base}/console/settings", headers={"Origin": server.admin_base},
                           timeout=10, data={"csrf": csrf(page.text), "section": "domains",
                                             "authorizedDomains": "viewer.example"})
    assert refused.status_code == 403 and "Viewers can look but not change anything" in refused.text

    # The admin's own cookie and token, posted from another origin: refused.
    forged = post_form(server, pages, {"section": "domains", "authorizedDomains": "evil.example"},
                       origin="http://evil.example")
    assert forged.status_code == 403
    assert config(api) == stored
