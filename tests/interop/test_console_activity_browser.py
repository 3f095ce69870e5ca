"""The console's Activity and Development pages in headless Chromium, on three servers: one in production mode that
mails through the SMTP sink, one in `--emulator`, and one in production mode with SMS and e-mail set to the
development outbox. On each, sign-ups, sign-ins, failed sign-ins, e-mails and SMS made through the public API are
counted on Activity, in its table and its charts' text, and a tenant's on the Activity page picked for it (not on the
project's). Development is 404 without an outbox. In the emulator it
shows the latest e-mail link and SMS code as the `/emulator/v1` routes list them, and "Clear all data" (typed
confirmation) deletes every account and is in the audit log, while a viewer sees no Clear button and a POST from a
viewer or from another origin deletes nothing. With an outbox outside the emulator there is nothing to clear and
viewers see no code. axe-core finds no violation at 360 and 1280 px; screenshots go where test_console_browser.py
puts its own."""
import os
import re
import time

import pytest
import requests
from google.auth.transport import requests as google_requests
from google.oauth2 import service_account
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import free_port, needs_chromium, run_smtp_sink, start
from test_console_browser import ADMIN, PASSWORD, viewer_session, output, signed_in  # noqa: F401 (fixtures used by name)

pytestmark = needs_chromium

PROJECT = "activity-test"


@pytest.fixture(scope="module")
def smtp_sink():
    """aiosmtpd with STARTTLS and AUTH, as test_action_pages_browser.py runs it; yields (port, directory)."""
    with run_smtp_sink("starttls", "--user", "relay", "--password", "relay-pass") as sink:
        yield sink


@pytest.fixture(scope="module", params=["smtp", "emulator", "outbox"])
def server(request):
    """`hearth serve` mailing through the SMTP sink (no SMS provider: nothing for a Development page),
    `hearth serve --emulator` (both outboxes), or `hearth serve` with both outboxes set explicitly."""
    if request.param in ("emulator", "outbox"):
        extra = ("--emulator",) if request.param == "emulator" else ()
        config = None if extra else {"sms": {"provider": "outbox"}, "email": {"provider": "outbox"},
                                     "projects": [{"projectId": PROJECT}]}
        for server in start(PROJECT, *extra, config=config):
            server.mode = request.param
            yield server
        return
    smtp_port, directory = request.getfixturevalue("smtp_sink")
    port = free_port()
    config = {
        "publicURL": f"http://127.0.0.1:{port}",
        "email": {"provider": "smtp", "smtp": {
            "host": "localhost", "port": smtp_port, "security": "starttls", "username": "relay",
            "from": "noreply@hearth.test", "fromName": "Hearth", "caFile": os.path.join(directory, "ca.pem")}},
        "projects": [{"projectId": PROJECT}],
    }
    for server in start(PROJECT, config=config, port=port, env={"HEARTH_SMTP_PASSWORD": "relay-pass"}):
        server.mode = "smtp"
        server.mail_dir = directory
        yield server


@pytest.fixture(scope="module")
def population(server):
    """The `signed_in` fixture's users: these tests make their own."""
    return None


def mails(directory):
    return sorted(name for name in os.listdir(directory) if name[0].isdigit() and name.endswith(".json"))


def accounts(server):
    """Every account of the project, through the admin API as the emulator's owner."""
    reply = requests.get(f"{server.base}/v1/projects/{PROJECT}/accounts:batchGet", params={"maxResults": 100},
                         headers={"Authorization": "Bearer owner"}, timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json().get("users", [])


def test_activity_counts_what_users_did(server, signed_in):
    pages, _ = signed_in
    driver = pages.driver
    # Two sign-ups (each signs in too), one more sign-in, two wrong passwords of an existing account, one failure
    # of an address without an account (no History to count it in), and one password-reset e-mail.
    for email in ("ada@activity.test", "bob@activity.test"):
        assert server.post("/v1/accounts:signUp", {"email": email, "password": "pass-word-1"}).status_code == 200
    assert server.post("/v1/accounts:signInWithPassword",
                       {"email": "ada@activity.test", "password": "pass-word-1"}).status_code == 200
    for _ in range(2):
        assert server.post("/v1/accounts:signInWithPassword",
                           {"email": "bob@activity.test", "password": "wrong-word"}).status_code == 400
    assert server.post("/v1/accounts:signInWithPassword",
                       {"email": "nobody@activity.test", "password": "wrong-word"}).status_code == 400
    sent = server.post("/v1/accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "ada@activity.test"})
    assert sent.status_code == 200, sent.text
    sms = 0
    if server.mode == "smtp":
        deadline = time.time() + 10
        while not mails(server.mail_dir) and time.time() < deadline:
            time.sleep(0.1)
        assert len(mails(server.mail_dir)) == 1, "the sink got the reset e-mail"
    else:
        code = server.post("/v1/accounts:sendVerificationCode", {"phoneNumber": "+15555550100"})
        assert code.status_code == 200, code.text
        sms = 1

    driver.get(f"{server.admin_base}/console/activity")
    assert driver.find_element(By.CSS_SELECTOR, "header nav").text.split() == (
        ["Users", "Audit", "log", "Settings", "Activity"] + (["Development"] if server.mode != "smtp" else []))
    totals = {name: int(pages.text(f"total-{name}"))
              for name in ("sign-ins", "sign-ins-password", "sign-ups", "failed", "sms", "emails")}
    assert totals == {"sign-ins": 3, "sign-ins-password": 3, "sign-ups": 2, "failed": 2, "sms": sms, "emails": 1}
    # Today is the table's first row, with the same numbers.
    today = driver.find_element(By.CSS_SELECTOR, "#activity tbody tr")
    assert today.find_element(By.TAG_NAME, "th").text == time.strftime("%Y-%m-%d", time.gmtime())
    assert [cell.text for cell in today.find_elements(By.TAG_NAME, "td")] == ["3", "3", "2", "2", str(sms), "1"]
    # Each chart is an image whose title says what it shows, with a bar for today.
    titles = {svg.get_attribute("id"): svg.find_element(By.TAG_NAME, "title").get_attribute("textContent")
              for svg in driver.find_elements(By.CSS_SELECTOR, "svg.chart")}
    assert set(titles) == {"chart-sign-ins", "chart-sign-ups", "chart-failed", "chart-sms", "chart-emails"}
    assert titles["chart-sign-ins"].startswith("Sign-ins per day over the last 30 days: 3 in all")
    assert titles["chart-failed"].startswith("Failed sign-ins per day over the last 30 days: 2 in all")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#chart-sign-ups rect")) == 1
    # No script and no inline style: the CSP would block them.
    assert "<script" not in driver.page_source and " style=" not in driver.page_source
    pages.check(f"activity-{server.mode}")


def test_a_tenants_activity_through_the_picker(server, signed_in):
    """A tenant's sign-ups and sign-ins are counted on the Activity page picked for that tenant, and not on the
    project's, as in the audit log."""
    pages, _ = signed_in
    driver = pages.driver
    creds = service_account.Credentials.from_service_account_file(
        server.service_account("activity-tenants"), scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google_requests.Request())
    made = requests.post(f"{server.base}/v2/projects/{PROJECT}/tenants", timeout=10,
                         json={"displayName": "activity-shop", "allowPasswordSignup": True},
                         headers={"Authorization": f"Bearer {creds.token}"})
    assert made.status_code == 200, made.text
    tenant = made.json()["tenantId"]

    def totals():
        return {name: int(pages.text(f"total-{name}")) for name in ("sign-ins", "sign-ups")}

    driver.get(f"{server.admin_base}/console/activity")
    project_before = totals()
    signed_up = server.post("/v1/accounts:signUp",
                            {"email": "t@activity.test", "password": "pass-word-1", "tenantId": tenant})
    assert signed_up.status_code == 200, signed_up.text

    Select(driver.find_element(By.ID, "tenant")).select_by_value(tenant)
    pages.click("show-tenant")
    assert f"tenant {tenant} of {PROJECT}" in pages.text("activity-scope")
    assert totals() == {"sign-ins": 1, "sign-ups": 1}
    pages.check(f"activity-tenant-{server.mode}")

    driver.get(f"{server.admin_base}/console/activity")
    assert totals() == project_before, "the tenant's sign-up is not the project's"
    # A tenant the project does not have is a clear 404, not the project's numbers.
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    missing = requests.get(f"{server.admin_base}/console/activity", params={"tenant": "no-such-tenant"},
                           cookies=cookies, timeout=10)
    assert missing.status_code == 404


def test_development_exists_only_where_there_is_an_outbox(server, signed_in):
    pages, _ = signed_in
    driver = pages.driver
    driver.get(f"{server.admin_base}/console/activity")
    csrf = driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    page = requests.get(f"{server.admin_base}/console/development", cookies=cookies, timeout=10)
    if server.mode == "emulator":
        assert page.status_code == 200 and "Clear all data" in page.text
        return
    # Mail through SMTP and no SMS provider: no page. An outbox outside the emulator: a page, nothing to clear.
    assert page.status_code == (404 if server.mode == "smtp" else 200)
    assert "Clear all data" not in page.text and 'id="clear"' not in page.text
    # Not even with this admin's valid session, token and Origin.
    clear = requests.post(f"{server.admin_base}/console/development/clear", cookies=cookies, timeout=10,
                          headers={"Origin": server.admin_base}, data={"csrf": csrf, "confirm": PROJECT})
    assert clear.status_code == 404
    assert server.post("/v1/accounts:signInWithPassword",
                       {"email": "ada@activity.test", "password": "pass-word-1"}).status_code == 200


def test_an_outbox_outside_the_emulator_hides_codes_from_viewers(server, signed_in):
    if server.mode != "outbox":
        pytest.skip("only an outbox outside the emulator keeps live codes from viewers")
    pages, _ = signed_in
    driver = pages.driver
    assert server.post("/v1/accounts:sendVerificationCode", {"phoneNumber": "+15555550177"}).status_code == 200
    assert server.post("/v1/accounts:sendOobCode",
                       {"requestType": "PASSWORD_RESET", "email": "ada@activity.test"}).status_code == 200
    driver.get(f"{server.admin_base}/console/development")
    assert "development outbox" in pages.text("mode")
    newest_sms = driver.find_element(By.CSS_SELECTOR, "#sms-codes tbody tr").text
    code = re.search(r"\+15555550177 (\d{6}) Live", newest_sms).group(1)
    newest_mail = driver.find_element(By.CSS_SELECTOR, "#email-links tbody tr").text
    link = re.search(r"(http\S+oobCode=\S+)", newest_mail).group(1)
    pages.check("development-outbox")

    viewer, _ = viewer_session(server, "outbox-viewer@activity.test")
    seen = viewer.get(f"{server.admin_base}/console/development", timeout=10)
    assert seen.status_code == 200 and "+15555550177" in seen.text and "hidden from viewers" in seen.text
    assert code not in seen.text and "oobCode=" not in seen.text and link not in seen.text


def test_development_shows_the_latest_codes_and_clears_all_data(server, signed_in):
    if server.mode != "emulator":
        pytest.skip("Development is the emulator's (or an outbox's)")
    pages, _ = signed_in
    driver = pages.driver
    base = server.admin_base
    assert server.post("/v1/accounts:signUp", {"email": "cleo@activity.test", "password": "pass-word-1"}).ok
    assert server.post("/v1/accounts:sendOobCode",
                       {"requestType": "PASSWORD_RESET", "email": "cleo@activity.test"}).status_code == 200
    assert server.post("/v1/accounts:sendVerificationCode", {"phoneNumber": "+15555550199"}).status_code == 200
    oob = requests.get(f"{server.base}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=10).json()["oobCodes"]
    codes = requests.get(f"{server.base}/emulator/v1/projects/{PROJECT}/verificationCodes",
                         timeout=10).json()["verificationCodes"]

    driver.get(f"{base}/console/development")
    newest_mail = driver.find_element(By.CSS_SELECTOR, "#email-links tbody tr").text
    assert "cleo@activity.test" in newest_mail and "PASSWORD_RESET" in newest_mail and "Live" in newest_mail
    assert oob[-1]["oobLink"] in newest_mail
    newest_sms = driver.find_element(By.CSS_SELECTOR, "#sms-codes tbody tr").text
    assert "+15555550199" in newest_sms and codes[-1]["code"] in newest_sms and "Live" in newest_sms
    pages.check("development")
    assert len(accounts(server)) >= 3

    # A viewer sees the codes (the emulator lists them to anyone) but no Clear button, and cannot clear.
    viewer, csrf = viewer_session(server, "viewer@activity.test")
    seen = viewer.get(f"{base}/console/development", timeout=10)
    assert seen.status_code == 200 and codes[-1]["code"] in seen.text
    assert 'id="clear"' not in seen.text and "/console/development/clear" not in seen.text
    refused = viewer.post(f"{base}/console/development/clear", headers={"Origin": base}, timeout=10,
                          data={"csrf": csrf(seen.text), "confirm": PROJECT})
    assert refused.status_code == 403 and "Viewers can look but not change anything" in refused.text
    # The admin's own session and token, posted from another origin (or with no Origin): refused.
    csrf_token = driver.find_element(By.CSS_SELECTOR, "#clear").find_element(
        By.XPATH, "./ancestor::form//input[@name='csrf']").get_attribute("value")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    for origin in ("http://evil.example", None):
        forged = requests.post(f"{base}/console/development/clear", cookies=cookies, timeout=10,
                               headers={"Origin": origin} if origin else {}, allow_redirects=False,
                               data={"csrf": csrf_token, "confirm": PROJECT})
        assert forged.status_code == 403
    count = len(accounts(server))
    assert count >= 3

    # The wrong project typed: refused, nothing deleted.
    pages.fill("confirm-project", "another-project")
    pages.click("clear")
    assert "Type the project ID exactly" in pages.text("error")
    assert len(accounts(server)) == count
    pages.fill("confirm-project", PROJECT)
    pages.click("clear")
    assert pages.text("notice") == "Every account of the project was deleted."
    assert accounts(server) == []
    pages.check("development-cleared")

    driver.get(f"{base}/console/audit?action=user.deleteAll")
    events = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")]
    assert len(events) == 1 and ADMIN in events[0] and "consoleAdmin" in events[0], events
    assert f'"deletedUsers":{count}' in events[0].replace(" ", ""), events
