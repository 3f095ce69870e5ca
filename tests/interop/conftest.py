"""Starts the real `hearth` binary on free loopback ports for the interop tests."""
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest
import requests

PROJECT = "interop-test"
BINARY = os.environ.get("HEARTH_BINARY", os.path.join(os.path.dirname(__file__), "../../.build/debug/hearth"))


class Hearth:
    def __init__(self, port: int, data_dir: str, project: str, scheme: str = "http"):
        self.port = port
        self.base = f"{scheme}://127.0.0.1:{port}"
        self.host = f"127.0.0.1:{port}"
        self.data_dir = data_dir
        self.project = project

    def post(self, path: str, body: dict, **kwargs):
        return requests.post(f"{self.base}{path}", params={"key": "any-key"}, json=body, timeout=10, **kwargs)

    @property
    def certs_url(self) -> str:
        return f"{self.base}/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    def cli(self, *args: str) -> str:
        """Runs a `hearth` subcommand on this server's data, as an operator would beside the running server."""
        done = subprocess.run(
            [BINARY, *args, "--data-dir", self.data_dir, "--project", self.project],
            capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def service_account(self, name: str) -> str:
        """A new service-account JSON file whose token_uri is this server's token endpoint."""
        path = os.path.join(self.data_dir, f"{name}.json")
        self.cli("service-accounts", "create", "--out", path, "--name", name,
                 "--token-uri", f"{self.base}/oauth2/token")
        return path


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver; .ci/run does)",
)


def browser(mapped_hosts: dict | None = None):
    """Headless Chromium through Debian's chromedriver, reaching only 127.0.0.1 and localhost. `mapped_hosts`
    sends a host's HTTPS (port 443) to a local TLS server's port instead, whose certificate is then not checked."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch drivers
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-domain-reliability", "--no-proxy-server",
                # Any host but loopback fails to resolve: no traffic leaves 127.0.0.1.
                "--host-resolver-rules=" + "".join(f"MAP {host}:443 127.0.0.1:{port} , "
                                                   for host, port in (mapped_hosts or {}).items())
                + "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost"]:
        options.add_argument(arg)
    if mapped_hosts:
        options.add_argument("--ignore-certificate-errors")
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def run_smtp_sink(mode: str, *extra: str):
    """Runs smtp_sink.py (aiosmtpd) in `mode` (`plain`, or `starttls` with a throwaway CA written beside the mail)
    with `extra` options (`--user`, `--password`), keeping what it receives in a fresh directory; yields
    (port, directory) and stops it afterwards."""
    directory = tempfile.mkdtemp(prefix="hearth-smtp-")
    tls = ("--tls-dir", directory) if mode == "starttls" else ()
    proc = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__), "smtp_sink.py"), "--mode", mode, "--out", directory,
         *tls, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()
    assert line and line[0] == "READY", "smtp_sink.py did not start (pip install -r tests/interop/requirements.txt)"
    try:
        yield int(line[1]), directory
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        shutil.rmtree(directory, ignore_errors=True)


def start(project: str, *extra: str, config: dict | None = None, preexec_fn=None, port: int = 0,
          env: dict | None = None, data_dir: str | None = None):
    """Starts `hearth serve` on a fresh data directory; yields a Hearth, stops it afterwards. `config` is written
    as the server's config file; `preexec_fn` runs in the child before it starts (resource limits); `port` when
    the configuration must know it in advance (publicURL); `env` adds environment variables."""
    data_dir = data_dir or tempfile.mkdtemp(prefix="hearth-interop-")
    if config is not None:
        config_path = os.path.join(tempfile.mkdtemp(prefix="hearth-config-"), "hearth.json")
        with open(config_path, "w") as f:
            json.dump(config, f)
        extra = (*extra, "--config", config_path)
    proc = subprocess.Popen(
        [BINARY, "serve", "--port", str(port or free_port()), "--admin-port", "0", "--data-dir", data_dir,
         "--project", project, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=preexec_fn,
        env={**os.environ, **(env or {})},
    )
    hearth_proc = proc
    port = admin_port = None
    scheme = "http"
    deadline = time.time() + 60
    lines = []
    while time.time() < deadline and (port is None or admin_port is None):
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"hearth listening on (https?)://127\.0\.0\.1:(\d+)", line)
        if match:
            scheme, port = match.group(1), int(match.group(2))
        match = re.search(r"operator endpoints .* on http://127\.0\.0\.1:(\d+)", line)
        if match:
            admin_port = int(match.group(1))
    if port is None or admin_port is None:
        proc.kill()
        raise RuntimeError("hearth did not start:\n" + "".join(lines))
    # Keep draining the log so the server never blocks on a full pipe, into a file that says why, should the server
    # end before its tests do.
    log_path = os.path.join(tempfile.mkdtemp(prefix="hearth-log-"), "hearth.log")
    with open(log_path, "w") as log:
        log.writelines(lines)
        log.flush()
        drain = subprocess.Popen(["cat"], stdin=proc.stdout, stdout=log)
    try:
        server = Hearth(port, data_dir, project, scheme)
        server.process = hearth_proc
        server.admin_base = f"http://127.0.0.1:{admin_port}"
        yield server
    finally:
        ended_early = proc.poll()
        proc.terminate()
        proc.wait(timeout=10)
        drain.wait(timeout=10)
        shutil.rmtree(data_dir, ignore_errors=True)
        with open(log_path) as log:
            tail = log.readlines()[-40:]
        shutil.rmtree(os.path.dirname(log_path), ignore_errors=True)
        if ended_early is not None:
            raise AssertionError(f"hearth serve ({project}) ended before its tests did, with status {ended_early}; "
                                 "the end of its log:\n" + "".join(tail))


@pytest.fixture(scope="session")
def hearth():
    yield from start(PROJECT)


@pytest.fixture(scope="session")
def hearth_emulator():
    """`hearth serve --emulator`: what FIREBASE_AUTH_EMULATOR_HOST points the Admin SDKs at."""
    yield from start("interop-admin", "--emulator")
