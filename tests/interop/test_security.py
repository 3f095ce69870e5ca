"""Attacks on a production `hearth serve` (no --emulator), made as an attacker would make them: with tokens the
official firebase-admin SDK and google-auth mint, raw sockets, and a process with few file descriptors."""
import json
import os
import resource
import socket
import stat
import threading
import time

import pytest
import requests
from google.auth import crypt
from google.auth import jwt as google_jwt

from conftest import PROJECT, start
from test_firebase_admin import offline_custom_token

IDENTITY_TOOLKIT = "https://identitytoolkit.googleapis.com/"


def admin_get(hearth, token):
    return requests.get(f"{hearth.base}/v1/projects/{PROJECT}/accounts:batchGet", params={"maxResults": 5},
                        headers={"Authorization": f"Bearer {token}"}, timeout=10)


def self_signed(path, **claims):
    """A JWT signed with the service account's key by google-auth, with iss = sub = its client e-mail."""
    signer = crypt.RSASigner.from_service_account_file(path)
    with open(path) as f:
        email = json.load(f)["client_email"]
    now = int(time.time())
    payload = {"iss": email, "sub": email, "iat": now, "exp": now + 3600, **claims}
    return google_jwt.encode(signer, {k: v for k, v in payload.items() if v is not None}).decode()


def test_a_custom_token_from_the_admin_sdk_is_not_an_admin_credential(hearth):
    path = hearth.service_account("custom-minter")
    for claims in (None, {"admin": True}):
        token = offline_custom_token(path, "end-user", claims)
        assert admin_get(hearth, token).status_code == 401
        reply = requests.post(f"{hearth.base}/v1/projects/{PROJECT}/accounts:update",
                              json={"localId": "end-user", "customAttributes": '{"admin":true}'},
                              headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert reply.status_code == 401
    # The same token still does what it is for.
    signed_in = hearth.post("/v1/accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert signed_in.status_code == 200, signed_in.text


def test_a_grant_assertion_works_at_the_token_endpoint_only(hearth):
    path = hearth.service_account("grant-replay")
    assertion = self_signed(path, aud=f"{hearth.base}/oauth2/token",
                            scope="https://www.googleapis.com/auth/identitytoolkit")
    assert admin_get(hearth, assertion).status_code == 401
    granted = requests.post(f"{hearth.base}/oauth2/token", timeout=10,
                            data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion})
    assert granted.status_code == 200, granted.text
    assert admin_get(hearth, granted.json()["access_token"]).status_code == 200


def test_jwt_access_needs_the_identity_toolkit_audience_or_scope(hearth):
    path = hearth.service_account("jwt-access-rules")
    assert admin_get(hearth, self_signed(path, aud=IDENTITY_TOOLKIT)).status_code == 200
    assert admin_get(hearth, self_signed(path, scope="https://www.googleapis.com/auth/firebase")).status_code == 200
    refused = [
        self_signed(path, aud=f"{hearth.base}/"),
        self_signed(path, aud="https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"),
        self_signed(path, scope="https://www.googleapis.com/auth/userinfo.email"),
        self_signed(path, aud=IDENTITY_TOOLKIT, uid="someone"),
        self_signed(path, aud=IDENTITY_TOOLKIT, exp=int(time.time()) + 7200),  # over an hour
        self_signed(path, aud=IDENTITY_TOOLKIT, nbf=int(time.time()) + 600),  # not valid yet
    ]
    for token in refused:
        assert admin_get(hearth, token).status_code == 401, token


def raw_exchange(hearth, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", hearth.port), timeout=10) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks):
                break
        return b"".join(chunks)


def test_requests_need_exactly_one_host_and_answers_say_nosniff(hearth):
    no_host = raw_exchange(hearth, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert no_host.startswith(b"HTTP/1.1 400"), no_host[:200]
    two_hosts = raw_exchange(hearth, b"GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n")
    assert two_hosts.startswith(b"HTTP/1.1 400"), two_hosts[:200]
    for reply in (requests.get(f"{hearth.base}/", timeout=10), requests.get(f"{hearth.base}/nowhere", timeout=10),
                  hearth.post("/v1/accounts:signInWithPassword", {})):
        assert reply.headers.get("X-Content-Type-Options") == "nosniff"


def test_credentials_are_not_read_from_a_post_query_string(hearth):
    hearth.post("/v1/accounts:signUp", {"email": "query@example.com", "password": "secret-1"})
    reply = requests.post(f"{hearth.base}/v1/accounts:signInWithPassword",
                          params={"key": "k", "password": "secret-1"}, json={"email": "query@example.com"}, timeout=10)
    assert reply.status_code == 400 and reply.json()["error"]["message"].startswith("MISSING_PASSWORD")


def test_data_directory_and_database_are_private_whatever_the_umask(hearth):
    assert stat.S_IMODE(os.stat(hearth.data_dir).st_mode) == 0o700
    for name in ("hearth.sqlite", "hearth.sqlite-wal"):
        path = os.path.join(hearth.data_dir, name)
        if os.path.exists(path):
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, name


def test_a_production_server_without_an_sms_provider_refuses_to_send(hearth):
    reply = hearth.post("/v1/accounts:sendVerificationCode", {"phoneNumber": "+14155550123"})
    assert reply.status_code == 400 and reply.json()["error"]["message"].startswith("OPERATION_NOT_ALLOWED")


@pytest.fixture
def impatient_hearth():
    yield from start("interop-timeouts", config={"http": {"idleTimeoutSeconds": 2, "requestTimeoutSeconds": 2}})


def closed_by_server_within(sock, seconds) -> bool:
    """Whether the server closes the connection (EOF or reset) within `seconds`; an answer before it is read past."""
    deadline = time.time() + seconds
    while (left := deadline - time.time()) > 0:
        sock.settimeout(left)
        try:
            if sock.recv(4096) == b"":
                return True
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
    return False


def test_slow_clients_are_disconnected(impatient_hearth):
    h = impatient_hearth
    idle = socket.create_connection(("127.0.0.1", h.port))
    partial_header = socket.create_connection(("127.0.0.1", h.port))
    partial_header.sendall(b"POST /v1/accounts:signUp HTTP/1.1\r\nHost: x\r\n")
    partial_body = socket.create_connection(("127.0.0.1", h.port))
    partial_body.sendall(b"POST /v1/accounts:signUp?key=k HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{")
    stop = time.time() + 6
    def drip():  # one byte a second keeps an idle timer alive, but not the request deadline
        while time.time() < stop:
            try:
                partial_body.sendall(b" ")
            except OSError:
                return
            time.sleep(0.5)
    threading.Thread(target=drip, daemon=True).start()
    for sock in (idle, partial_header, partial_body):
        assert closed_by_server_within(sock, 6)
        sock.close()
    assert requests.get(f"{h.base}/", timeout=5).status_code == 200


@pytest.fixture
def few_descriptors_hearth():
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    yield from start("interop-flood", config={"http": {"idleTimeoutSeconds": 30}}, preexec_fn=limit)


def test_a_connection_flood_past_the_descriptor_limit_does_not_take_the_server_down(few_descriptors_hearth):
    h = few_descriptors_hearth
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1024:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    flood = []
    try:
        for _ in range(300):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", h.port))
            flood.append(s)
        time.sleep(1)
        # Light traffic during the flood: answered or queued, never a crash.
        for _ in range(3):
            try:
                requests.get(f"{h.base}/", timeout=0.5)
            except requests.RequestException:
                pass
        assert h.process.poll() is None, "the server died under the flood"
    finally:
        for s in flood:
            s.close()
    started = time.time()
    deadline = started + 1
    while True:
        try:
            if requests.get(f"{h.base}/", timeout=max(0.05, deadline - time.time())).status_code == 200:
                break
        except requests.RequestException:
            if time.time() > deadline:
                raise
    assert time.time() - started <= 1
    assert h.process.poll() is None
