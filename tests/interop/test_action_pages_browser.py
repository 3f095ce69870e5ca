"""A password reset as a user does it: the e-mail arrives at a real SMTP server (aiosmtpd, STARTTLS, AUTH),
headless Chromium opens the link, fills in Hearth's own action page and submits it, and the new password
signs in. Everything stays on 127.0.0.1; nothing is written to the repository (no screenshots)."""
import glob
import json
import os
import time

import pytest

from conftest import browser, free_port, needs_chromium, run_smtp_sink, start

pytestmark = needs_chromium


@pytest.fixture
def smtp_sink():
    """aiosmtpd with STARTTLS and AUTH, a throwaway CA in its directory; yields (port, directory)."""
    with run_smtp_sink("starttls", "--user", "relay", "--password", "relay-pass") as sink:
        yield sink


@pytest.fixture
def mailing_hearth(smtp_sink):
    """`hearth serve` in production mode, mailing through the sink, its links at its own publicURL."""
    smtp_port, directory = smtp_sink
    port = free_port()
    config = {
        "publicURL": f"http://127.0.0.1:{port}",
        "email": {"provider": "smtp", "smtp": {
            "host": "localhost", "port": smtp_port, "security": "starttls", "username": "relay",
            "from": "noreply@hearth.test", "fromName": "Hearth", "caFile": os.path.join(directory, "ca.pem")}},
        "projects": [{"projectId": "browser-test"}],
    }
    path = os.path.join(directory, "hearth.json")
    with open(path, "w") as f:
        json.dump(config, f)
    yield from ((h, directory) for h in start(
        "browser-test", "--config", path, port=port, env={"HEARTH_SMTP_PASSWORD": "relay-pass"}))


def received(directory):
    deadline = time.time() + 10
    while time.time() < deadline:
        files = sorted(glob.glob(os.path.join(directory, "[0-9]*.json")))
        if files:
            with open(files[-1]) as f:
                return json.load(f)
        time.sleep(0.1)
    raise AssertionError("no e-mail arrived")


def test_a_user_resets_their_password_from_the_email(mailing_hearth):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    hearth, directory = mailing_hearth
    assert hearth.post("/v1/accounts:signUp", {"email": "ada@example.com", "password": "first-pass"}).ok
    sent = hearth.post("/v1/accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "ada@example.com"})
    assert sent.status_code == 200, sent.text
    mail = received(directory)
    assert mail["tls"] and mail["authenticated"]
    assert mail["contentType"] == "multipart/alternative"
    link = next(word for word in mail["text"].split() if word.startswith("http"))
    assert link.startswith(f"{hearth.base}/__/auth/action?mode=resetPassword&oobCode=")
    assert link.replace("&", "&amp;") in mail["html"]

    driver = browser()
    try:
        driver.get(link)
        assert driver.title == "Reset your password"
        driver.find_element(By.ID, "newPassword").send_keys("second-pass")
        driver.find_element(By.ID, "submit").click()
        WebDriverWait(driver, 10).until(
            expected_conditions.text_to_be_present_in_element((By.ID, "message"), "Your password has been changed"))
        # The same link again: spent.
        driver.get(link)
        assert "does not work" in driver.find_element(By.TAG_NAME, "h1").text
    finally:
        driver.quit()

    assert hearth.post("/v1/accounts:signInWithPassword",
                       {"email": "ada@example.com", "password": "second-pass", "returnSecureToken": True}).ok
    assert not hearth.post("/v1/accounts:signInWithPassword",
                           {"email": "ada@example.com", "password": "first-pass"}).ok
