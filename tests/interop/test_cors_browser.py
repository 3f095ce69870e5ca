"""A web app on another origin reads every kind of error Hearth answers, as the JS SDK must to report
`auth/wrong-password` instead of `auth/network-request-failed`: headless Chromium opens a page served from another
loopback port and calls Hearth with `fetch()`; the browser enforces CORS, so an answer without
`Access-Control-Allow-Origin` would reject the fetch. Both modes: production (with a mail server that is down, for a
503) and `--emulator`."""
import http.server
import json
import socket
import threading

import pytest
import requests

from conftest import browser, needs_chromium, start

pytestmark = needs_chromium

# Each case: (what, method, path, headers, body); body "BIG" is 17 MiB, a string is sent as is, a dict as JSON.
CASES = [
    ("wrong password", "POST", "/v1/accounts:signInWithPassword?key=k", {},
     {"email": "ada@example.com", "password": "wrong-pass", "returnSecureToken": True}),
    ("e-mail in use", "POST", "/v1/accounts:signUp?key=k", {}, {"email": "ada@example.com", "password": "pass-word"}),
    ("weak password", "POST", "/v1/accounts:signUp?key=k", {}, {"email": "bob@example.com", "password": "1"}),
    ("used code", "POST", "/v1/accounts:resetPassword?key=k", {}, {"oobCode": "used-or-never-issued"}),
    ("unknown route", "POST", "/v1/accounts:noSuchMethod?key=k", {}, {}),
    ("malformed JSON", "POST", "/v1/accounts:signUp?key=k", {}, '{"email": '),
    ("too large", "POST", "/v1/accounts:signUp?key=k", {}, "BIG"),
    ("no API key", "POST", "/v1/accounts:signUp", {}, {}),
    ("bad admin credential", "POST", "/v1/projects/p/accounts:lookup", {"Authorization": "Bearer forged"},
     {"localId": ["x"]}),
]

# Runs in the page: every case through fetch(); a rejected fetch (what CORS does) is reported as such.
SCRIPT = """
const [base, cases, done] = arguments;
const results = [];
for (const [what, method, path, headers, body] of cases) {
  const init = {method, headers: {"Content-Type": "application/json", ...headers}};
  if (body === "BIG") init.body = " ".repeat(17 * 1024 * 1024);
  else if (typeof body === "string") init.body = body;
  else init.body = JSON.stringify(body);
  try {
    const response = await fetch(base + path, init);
    results.push({what, status: response.status, body: await response.text()});
  } catch (e) {
    results.push({what, status: 0, body: String(e)});
  }
}
done(results);
"""


class AppPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        page = b"<!doctype html><title>another origin</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def app_origin():
    """A page on a loopback port of its own: another origin than Hearth's."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AppPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def driver():
    d = browser()
    d.set_script_timeout(60)
    yield d
    d.quit()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def production_hearth():
    """Production mode whose mail server is unreachable, so sending a reset link is a 503."""
    config = {
        "email": {"provider": "smtp", "smtp": {"host": "127.0.0.1", "port": closed_port(), "security": "none",
                                               "from": "noreply@hearth.test", "timeoutSeconds": 5}},
        "projects": [{"projectId": "cors-test", "apiKeys": ["k"], "emailEnumerationProtection": False}],
    }
    yield from start("cors-test", config=config)


@pytest.fixture(scope="module")
def emulator_hearth():
    yield from start("cors-emulator", "--emulator")


def read_from_another_origin(driver, app_origin, hearth, cases):
    driver.get(app_origin)
    made = requests.post(f"{hearth.base}/v1/accounts:signUp", params={"key": "k"}, timeout=10,
                         json={"email": "ada@example.com", "password": "pass-word"})
    assert made.ok, made.text
    results = driver.execute_async_script(SCRIPT, hearth.base, cases)
    read = {}
    for result in results:
        assert result["status"] != 0, f"{result['what']}: the browser refused the answer: {result['body']}"
        read[result["what"]] = (result["status"], json.loads(result["body"])["error"])
    return read


def test_a_page_on_another_origin_reads_every_error_in_production(driver, app_origin, production_hearth):
    cases = CASES + [("mail server down", "POST", "/v1/accounts:sendOobCode?key=k", {},
                      {"requestType": "PASSWORD_RESET", "email": "ada@example.com"})]
    read = read_from_another_origin(driver, app_origin, production_hearth, cases)
    expected = {
        "wrong password": (400, "INVALID_PASSWORD"), "e-mail in use": (400, "EMAIL_EXISTS"),
        "weak password": (400, "WEAK_PASSWORD"), "used code": (400, "INVALID_OOB_CODE"),
        "unknown route": (404, None), "malformed JSON": (400, None), "too large": (413, None),
        "no API key": (403, None), "bad admin credential": (401, None), "mail server down": (503, "UNAVAILABLE"),
    }
    for what, (status, code) in expected.items():
        got_status, error = read[what]
        assert got_status == status and error["code"] == status, (what, got_status, error)
        if code:
            assert error["message"].split(" : ")[0] == code, (what, error)


def test_a_page_on_another_origin_reads_every_error_of_the_emulator(driver, app_origin, emulator_hearth):
    read = read_from_another_origin(driver, app_origin, emulator_hearth, CASES)
    assert read["wrong password"][0] == 400 and read["e-mail in use"][1]["message"].startswith("EMAIL_EXISTS")
    assert read["unknown route"][0] == 404 and read["too large"][0] == 413
    assert all(400 <= status < 500 for status, _ in read.values()), read
