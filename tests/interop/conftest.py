"""Starts the real `hearth` binary on a free loopback port for the interop tests."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest
import requests

PROJECT = "interop-test"


class Hearth:
    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"

    def post(self, path: str, body: dict, **kwargs):
        return requests.post(f"{self.base}{path}", params={"key": "any-key"}, json=body, timeout=10, **kwargs)

    @property
    def certs_url(self) -> str:
        return f"{self.base}/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"


@pytest.fixture(scope="session")
def hearth():
    binary = os.environ.get("HEARTH_BINARY", os.path.join(os.path.dirname(__file__), "../../.build/debug/hearth"))
    data_dir = tempfile.mkdtemp(prefix="hearth-interop-")
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--data-dir", data_dir, "--project", PROJECT],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    port = None
    deadline = time.time() + 60
    lines = []
    while time.time() < deadline and port is None:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if match:
            port = int(match.group(1))
    if port is None:
        proc.kill()
        raise RuntimeError("hearth did not start:\n" + "".join(lines))
    try:
        yield Hearth(port)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(data_dir, ignore_errors=True)
