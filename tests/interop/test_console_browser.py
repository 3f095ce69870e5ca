"""The console as an operator uses it, in headless Chromium: an admin bootstrapped through the CLI's setup link
(TOTP enrolled with pyotp), signed in, one user found among many by an e-mail prefix, disabled (their refresh fails
with USER_DISABLED) and enabled, their claims edited (seen in the next ID token), one session and then every
session revoked, each step found in the audit log; a user's passkeys listed and one removed (passkey.remove); a form
posted from another origin and a request with another Host change nothing; axe-core finds no violation on any page
at 360 and 1280 px. Screenshots go to $HEARTH_TEST_OUTPUT/console (a temporary directory without it), never into
the repository."""
import base64
import json
import os
import re
import tempfile
import time
import urllib.parse

import pyotp
import pytest
import requests
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import browser, needs_chromium, start

pytestmark = needs_chromium

PROJECT = "console-test"
ADMIN = "ops@console.test"
PASSWORD = "a long console password"
TARGET = "zed.target@console.test"
PASSKEY_HOLDER = "pk-holder"


@pytest.fixture(scope="module")
def server():
    yield from start(PROJECT)


@pytest.fixture(scope="module")
def output():
    directory = os.path.join(os.environ.get("HEARTH_TEST_OUTPUT") or tempfile.mkdtemp(prefix="hearth-console-"),
                             "console")
    os.makedirs(directory, exist_ok=True)
    return directory


@pytest.fixture(scope="module")
def population(server):
    """120 imported users whose e-mails share a prefix, one imported with two passkeys (as Hearth exports them), and
    one target who signed up with a password."""
    users = [{"localId": f"bulk{i:03d}", "email": f"user{i:03d}@console.test"} for i in range(120)]
    handle = base64.b64encode(bytes(32)).decode()
    users.append({"localId": PASSKEY_HOLDER, "email": "passkeys@console.test", "passkeyInfo": [
        {"credentialId": base64.b64encode(bytes([0xFB, 0xFF, 1])).decode(), "userHandle": handle,
         "publicKey": base64.b64encode(b"cose-key-phone").decode(), "alg": -7, "name": "Phone <b>1</b>",
         "backedUp": True, "createdAt": "1714557600000", "lastUsedAt": "1714644000000"},
        {"credentialId": base64.b64encode(bytes([2, 3])).decode(), "userHandle": handle,
         "publicKey": base64.b64encode(b"cose-key-key").decode(), "alg": -7, "name": "Security key",
         "createdAt": "1714557660000"},
    ]})
    path = os.path.join(server.data_dir, "users.json")
    with open(path, "w") as f:
        json.dump({"users": users}, f)
    server.cli("users", "import", path)
    reply = server.post("/v1/accounts:signUp", {"email": TARGET, "password": "target-password-1"})
    assert reply.status_code == 200, reply.text
    return reply.json()


def refresh(server, token):
    return requests.post(f"{server.base}/v1/token", params={"key": "k"}, timeout=10,
                         data={"grant_type": "refresh_token", "refresh_token": token})


def claims(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def detached(error):
    """Whether chromedriver refused a node because its page is gone: a stale reference, or the inspector's
    "does not belong to the document" that it reports instead when the page is replaced mid-command."""
    return isinstance(error, StaleElementReferenceException) or "does not belong to the document" in str(error)


def replaced(element):
    """A wait condition: the page that held `element` has been replaced by another."""
    def gone(driver):
        try:
            element.is_enabled()
            return False
        except (StaleElementReferenceException, WebDriverException) as error:
            if detached(error):
                return True
            raise
    return gone


class Pages:
    """The browser, with axe and a screenshot at both widths for every page it lands on."""

    def __init__(self, driver, output):
        self.driver = driver
        self.output = output
        self.checked = []

    def check(self, name):
        from axe_selenium_python import Axe
        for width in (360, 1280):
            self.driver.set_window_size(width, 900)
            axe = Axe(self.driver)
            axe.inject()
            results = axe.run()
            assert results["violations"] == [], f"{name} at {width}px: " + axe.report(results["violations"])
            self.driver.save_screenshot(os.path.join(self.output, f"{name}-{width}.png"))
        self.checked.append(name)

    def fill(self, element_id, text):
        field = self.driver.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def click(self, element_id):
        """Clicks something that loads a page, and waits for that page.

        Under load chromedriver sometimes refuses a node it has just found ("does not belong to the document")
        before clicking it; the click did not happen then (the page is still the same), so it is found again."""
        before = self.driver.find_element(By.TAG_NAME, "html")
        for attempt in range(3):
            try:
                self.driver.find_element(By.ID, element_id).click()
                break
            except (StaleElementReferenceException, WebDriverException) as error:
                if attempt == 2 or replaced(before)(self.driver) or not detached(error):
                    raise
                time.sleep(0.2)
        WebDriverWait(self.driver, 10).until(replaced(before))

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text


@pytest.fixture(scope="module")
def signed_in(server, population, output):
    """Bootstraps the admin through the CLI's link and signs in with a recovery code; yields (pages, totp)."""
    printed = server.cli("console-admins", "create", "--email", ADMIN, "--console-url", server.admin_base)
    setup_url = printed.strip().splitlines()[-1]
    assert setup_url.startswith(f"{server.admin_base}/console/setup?token=")
    driver = browser()
    pages = Pages(driver, output)
    try:
        driver.get(setup_url)
        pages.check("setup")
        totp = pyotp.TOTP(pages.text("totp-secret"))
        pages.fill("password", PASSWORD)
        pages.fill("confirm", PASSWORD)
        pages.fill("code", totp.now())
        pages.click("submit")
        codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
        assert len(codes) == 10
        pages.check("recovery-codes")

        # The link was spent by the setup.
        driver.get(setup_url)
        assert "invalid, used or expired" in driver.page_source

        driver.get(f"{server.admin_base}/console/sign-in")
        pages.check("sign-in")
        pages.fill("email", ADMIN)
        pages.fill("password", PASSWORD)
        pages.click("submit")
        pages.check("sign-in-code")
        # The setup used this step's TOTP code; a recovery code signs in without waiting for the next one.
        pages.fill("code", codes[0])
        pages.click("submit")
        assert driver.current_url == f"{server.admin_base}/console/users"
        yield pages, totp
    finally:
        driver.quit()


def test_find_disable_enable_claims_revoke(server, population, signed_in):
    pages, totp = signed_in
    driver = pages.driver
    pages.check("users")

    # One user among 121, by an e-mail prefix.
    pages.fill("q", "zed.t")
    pages.click("search")
    rows = driver.find_elements(By.CSS_SELECTOR, "#users tbody tr")
    assert len(rows) == 1 and TARGET in rows[0].text
    pages.check("users-search")

    # Keyset pages of 50: the next page continues after the last address shown, without repeats.
    pages.fill("q", "user")
    pages.click("search")
    first = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#users tbody tr")]
    assert len(first) == 50 and "user000@console.test" in first[0]
    pages.click("next-page")
    second = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#users tbody tr")]
    assert len(second) == 50 and "user050@console.test" in second[0]

    pages.fill("q", "zed.t")
    pages.click("search")
    before = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.LINK_TEXT, population["localId"]).click()
    WebDriverWait(driver, 10).until(replaced(before))
    pages.check("user")
    assert driver.find_element(By.XPATH, "//h2[text()='Delete account']").is_displayed()

    pages.click("disable")
    assert pages.text("status") == "Disabled"
    refused = refresh(server, population["refreshToken"])
    assert refused.status_code == 400 and refused.json()["error"]["message"].startswith("USER_DISABLED")

    pages.click("enable")
    assert pages.text("status") == "Enabled"
    # Disabling ended the sessions that existed then; the user signs in again.
    signed_in_again = server.post("/v1/accounts:signInWithPassword",
                                  {"email": TARGET, "password": "target-password-1", "returnSecureToken": True})
    assert signed_in_again.status_code == 200, signed_in_again.text
    token = signed_in_again.json()["refreshToken"]

    # Claims the admin API would refuse are refused here too, and nothing is stored.
    pages.fill("claims", '{"sub": "someone-else"}')
    pages.click("save-claims")
    assert "FORBIDDEN_CLAIM" in pages.text("error")
    pages.check("user-error")
    pages.fill("claims", '{"role": "editor", "level": 3}')
    pages.click("save-claims")
    assert pages.text("notice") == "Custom claims saved."
    refreshed = refresh(server, token)
    assert refreshed.status_code == 200, refreshed.text
    assert {"role": "editor", "level": 3}.items() <= claims(refreshed.json()["id_token"]).items()

    # One session among several ends; the others live on.
    second = server.post("/v1/accounts:signInWithPassword",
                         {"email": TARGET, "password": "target-password-1", "returnSecureToken": True}).json()
    driver.refresh()
    rows = driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")
    assert len(rows) == 2
    pages.check("user-sessions")
    # Oldest first: the last row is the session just made.
    pages.click(rows[-1].find_element(By.TAG_NAME, "button").get_attribute("id"))
    assert pages.text("notice") == "Session revoked."
    ended = refresh(server, second["refreshToken"])
    assert ended.status_code == 400 and ended.json()["error"]["message"].startswith("TOKEN_EXPIRED")
    refreshed = refresh(server, refreshed.json()["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text

    # Revoking every session asks for the code again: a wrong one changes nothing…
    pages.fill("revoke-code", "000000" if totp.now() != "000000" else "111111")
    pages.click("revoke")
    assert "INVALID_CODE" in pages.text("error")
    assert refresh(server, refreshed.json()["refresh_token"]).status_code == 200
    # …a fresh one (the next step's: this step's was spent by the setup) ends them.
    pages.fill("revoke-code", totp.at(int(time.time()) + 30))
    pages.click("revoke")
    assert pages.text("notice") == "All sessions revoked."
    revoked = refresh(server, refreshed.json()["refresh_token"])
    assert revoked.status_code == 400 and revoked.json()["error"]["message"].startswith("TOKEN_EXPIRED")

    # Each step is in the audit log, by this admin, with the user's uid; and in the user's History.
    driver.get(f"{server.admin_base}/console/audit?uid={population['localId']}")
    pages.check("audit")
    events = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")]
    for action in ("user.disable", "user.enable", "user.claims", "session.revoke"):
        assert any(action in row and ADMIN in row for row in events), (action, events)
    driver.get(f"{server.admin_base}/console/audit?action=console.signIn")
    assert any(ADMIN in row.text for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr"))
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    csv = requests.get(f"{server.admin_base}/console/audit.csv", params={"uid": population["localId"]},
                       cookies=cookies, timeout=10)
    assert csv.status_code == 200 and csv.headers["Content-Type"].startswith("text/csv")
    assert csv.text.startswith("time,actorKind,actor,") and "user.disable" in csv.text

    driver.get(f"{server.admin_base}/console/users/new")
    pages.check("create-user")
    pages.fill("email", "made.in.console@console.test")
    pages.fill("password", "made-password-1")
    pages.click("submit")
    assert pages.text("notice") == "User created."
    made = server.post("/v1/accounts:signInWithPassword",
                       {"email": "made.in.console@console.test", "password": "made-password-1"})
    assert made.status_code == 200, made.text


def test_a_users_passkeys_are_listed_and_one_removed(server, population, signed_in):
    """The user page lists the passkeys (name escaped, created, last used, backed up); Remove deletes exactly that one
    through the admin use case, recorded in the audit log as this admin's passkey.remove."""
    pages, _ = signed_in
    driver = pages.driver
    driver.get(f"{server.admin_base}/console/users/{PASSKEY_HOLDER}")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#passkeys tbody tr")]
    assert len(rows) == 2, rows
    assert rows[0].startswith("Phone <b>1</b> 2024-05-01T10:00:00Z 2024-05-02T10:00:00Z Yes"), rows
    assert rows[1].startswith("Security key 2024-05-01T10:01:00Z — No"), rows
    pages.check("user-passkeys")

    pages.click("remove-passkey-AgM")
    assert pages.text("notice") == "Passkey removed."
    assert [row.text.split(" 2024")[0] for row in driver.find_elements(By.CSS_SELECTOR, "#passkeys tbody tr")] == [
        "Phone <b>1</b>"]
    driver.get(f"{server.admin_base}/console/audit?uid={PASSKEY_HOLDER}&action=passkey.remove")
    events = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#events tbody tr")]
    assert len(events) == 1 and ADMIN in events[0], events

    # A Remove for an id the user no longer has is the admin API's refusal, and removes nothing else.
    driver.get(f"{server.admin_base}/console/users/{PASSKEY_HOLDER}")
    csrf = driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    stale = requests.post(f"{server.admin_base}/console/users/{PASSKEY_HOLDER}", cookies=cookies, timeout=10,
                          headers={"Origin": server.admin_base},
                          data={"csrf": csrf, "action": "removePasskey", "credentialId": "AgM="})
    assert stale.status_code == 400 and "PASSKEY_ENROLLMENT_NOT_FOUND" in stale.text
    assert stale.text.count("remove-passkey-") == 1


def test_forged_posts_and_wrong_hosts_change_nothing(server, population, signed_in):
    pages, _ = signed_in
    driver = pages.driver
    uid = population["localId"]
    driver.get(f"{server.admin_base}/console/users/{uid}")
    csrf = driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    target = f"{server.admin_base}/console/users/{urllib.parse.quote(uid)}"

    def still_enabled():
        driver.get(target)
        return pages.text("status") == "Enabled"

    # A page on another origin posting the console's form, in the same browser: refused, nothing disabled.
    attacker = ("data:text/html," + urllib.parse.quote(
        f'<form method="post" action="{target}"><input name="action" value="disable">'
        f'<input name="csrf" value="{csrf}"><button id="go">go</button></form>'))
    driver.get(attacker)
    driver.find_element(By.ID, "go").click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(server.admin_base))
    assert "This form did not come from this console" in driver.page_source
    assert still_enabled()

    # The session cookie and a valid token, but another Origin (or none): refused.
    for origin in ("http://evil.example", None):
        headers = {"Origin": origin} if origin else {}
        forged = requests.post(target, data={"action": "disable", "csrf": csrf}, cookies=cookies, headers=headers,
                               allow_redirects=False, timeout=10)
        assert forged.status_code == 403
    # The right Origin but a token made for another browser cookie: refused.
    forged = requests.post(target, data={"action": "disable", "csrf": csrf},
                           cookies={**cookies, "hearth_console_browser": "another-browser-cookie-value"},
                           headers={"Origin": server.admin_base}, allow_redirects=False, timeout=10)
    assert forged.status_code == 403
    assert still_enabled()

    # DNS rebinding: a name the console was not configured with.
    rebound = requests.get(f"{server.admin_base}/console/users", cookies=cookies,
                           headers={"Host": "attacker.example"}, timeout=10)
    assert rebound.status_code == 421
    # Bearer credentials of any kind are not the console's.
    account = server.post("/v1/accounts:signUp", {"returnSecureToken": True}).json()
    bearer = requests.get(f"{server.admin_base}/console/users", timeout=10,
                          headers={"Authorization": f"Bearer {account['idToken']}"}, allow_redirects=False)
    assert bearer.status_code == 401
    # Without the session cookie the console sends the browser to sign in.
    anonymous = requests.get(f"{server.admin_base}/console/users", timeout=10, allow_redirects=False)
    assert anonymous.status_code == 303 and anonymous.headers["Location"] == "/console/sign-in"
    assert anonymous.headers["Cache-Control"] == "no-store"
    assert anonymous.headers["Content-Security-Policy"].startswith("default-src 'none'; style-src 'self'")


def test_lockout_after_repeated_failures(server, population):
    """Five wrong passwords lock the admin out, even with the right password afterwards (for 30 s, doubling)."""
    printed = server.cli("console-admins", "create", "--email", "locked@console.test", "--role", "viewer",
                         "--console-url", server.admin_base)
    assert re.search(r"/console/setup\?token=", printed.strip().splitlines()[-1])
    session = requests.Session()
    page = session.get(f"{server.admin_base}/console/sign-in", timeout=10)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    headers = {"Origin": server.admin_base}
    # The admin has not finished setup: no password works, and each try counts.
    for _ in range(5):
        reply = session.post(f"{server.admin_base}/console/sign-in", headers=headers, timeout=10,
                             data={"csrf": csrf, "email": "locked@console.test", "password": "wrong password!"})
        assert reply.status_code == 400 and "INVALID_LOGIN_CREDENTIALS" in reply.text
    reply = session.post(f"{server.admin_base}/console/sign-in", headers=headers, timeout=10,
                         data={"csrf": csrf, "email": "locked@console.test", "password": "wrong password!"})
    assert reply.status_code == 429 and "TOO_MANY_ATTEMPTS_TRY_LATER" in reply.text


def test_a_viewer_sees_and_changes_nothing(server, population):
    """A viewer signs in (setup link, password, code) and reads a user's page without any form; a POST made by
    hand with the viewer's valid session, token and Origin is refused and changes nothing."""
    base = server.admin_base
    session, csrf = viewer_session(server, "viewer@console.test")
    headers = {"Origin": base}

    uid = population["localId"]
    user_page = session.get(f"{base}/console/users/{uid}", timeout=10)
    assert user_page.status_code == 200 and TARGET in user_page.text
    assert "<form method=\"post\" action=\"/console/users/" not in user_page.text
    assert 'id="create-user"' not in session.get(f"{base}/console/users", timeout=10).text
    refused = session.post(f"{base}/console/users/{uid}", headers=headers, timeout=10,
                           data={"csrf": csrf(user_page.text), "action": "disable"})
    assert refused.status_code == 403 and "Viewers can look but not change anything" in refused.text
    assert "Enabled" in session.get(f"{base}/console/users/{uid}", timeout=10).text
    # A viewer sees a user's passkeys but no Remove.
    holder = session.get(f"{base}/console/users/{PASSKEY_HOLDER}", timeout=10).text
    assert 'id="passkeys"' in holder and "Phone &lt;b&gt;1&lt;/b&gt;" in holder and "remove-passkey-" not in holder


def viewer_session(server, email):
    """A viewer made with the CLI and signed in by hand (setup link, password, TOTP, then a recovery code), as a
    requests session; returns it and the page's anti-forgery token reader."""
    base = server.admin_base
    link = server.cli("console-admins", "create", "--email", email, "--role", "viewer",
                      "--console-url", base).strip().splitlines()[-1]
    session = requests.Session()
    headers = {"Origin": base}

    def csrf(text):
        return re.search(r'name="csrf" value="([^"]+)"', text).group(1)

    page = session.get(link, timeout=10).text
    secret = re.search(r'id="totp-secret">([A-Z2-7]+)<', page).group(1)
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    done = session.post(f"{base}/console/setup", headers=headers, timeout=10, data={
        "csrf": csrf(page), "token": token, "password": PASSWORD, "confirm": PASSWORD,
        "code": pyotp.TOTP(secret).now()})
    recovery = re.findall(r"<li><code>([a-z0-9]+)</code></li>", done.text)
    assert len(recovery) == 10
    form = session.get(f"{base}/console/sign-in", timeout=10).text
    step = session.post(f"{base}/console/sign-in", headers=headers, timeout=10,
                        data={"csrf": csrf(form), "email": email, "password": PASSWORD})
    proof = re.search(r'name="proof" value="([^"]+)"', step.text).group(1)
    signed_in = session.post(f"{base}/console/sign-in/code", headers=headers, timeout=10, allow_redirects=False,
                             data={"csrf": csrf(form), "email": email, "proof": proof, "code": recovery[0]})
    assert signed_in.status_code == 303
    return session, csrf
