"""docs/deploy/nginx.conf, as shipped, in front of a real `hearth serve` with TLS: clients are told apart by the
address nginx saw, and an X-Forwarded-For a client writes itself changes nothing."""
import datetime
import http.client
import json
import os
import re
import shutil
import ssl
import subprocess
import tempfile
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conftest import free_port, start

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SITE = os.path.join(os.path.dirname(__file__), "../../docs/deploy/nginx.conf")

pytestmark = pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx is not installed (.ci/run installs it)")


def self_signed_certificate(directory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "auth.example.com")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("auth.example.com")]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def proxied():
    config = {"http": {"trustedProxies": ["127.0.0.1/32"]},
              "projects": [{"projectId": "interop-proxy", "rateLimits": {"signUpsPerIPPerHour": 1}}]}
    for hearth in start("interop-proxy", config=config):
        directory = tempfile.mkdtemp(prefix="hearth-nginx-")
        cert, key = self_signed_certificate(directory)
        tls_port = free_port()
        with open(SITE) as f:
            site = (f.read().replace("listen 443 ssl;", f"listen 127.0.0.1:{tls_port} ssl;")
                    .replace("/etc/ssl/certs/auth.example.com.pem", cert)
                    .replace("/etc/ssl/private/auth.example.com.key", key)
                    .replace("http://127.0.0.1:9099", hearth.base))
        with open(os.path.join(directory, "nginx.conf"), "w") as f:
            f.write(f"pid {directory}/nginx.pid;\nerror_log {directory}/error.log;\nevents {{}}\n"
                    f"http {{\naccess_log off;\nclient_body_temp_path {directory}/body;\n"
                    f"proxy_temp_path {directory}/proxy;\n{site}\n}}\n")
        nginx = subprocess.Popen([NGINX, "-p", directory, "-c", os.path.join(directory, "nginx.conf"),
                                  "-g", "daemon off;"], stderr=subprocess.PIPE)
        context = ssl.create_default_context(cafile=cert)
        context.check_hostname = False  # the certificate names auth.example.com; the test dials 127.0.0.1
        deadline = time.time() + 10
        while True:
            try:
                probe = http.client.HTTPSConnection("127.0.0.1", tls_port, context=context, timeout=2)
                probe.request("GET", "/", headers={"Host": "auth.example.com"})
                probe.getresponse().read()
                break
            except (OSError, ssl.SSLError):
                if time.time() > deadline or nginx.poll() is not None:
                    raise RuntimeError("nginx did not start: " + (nginx.stderr.read().decode() if nginx.poll() else ""))
                time.sleep(0.1)
        try:
            yield tls_port, context
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)
            shutil.rmtree(directory, ignore_errors=True)


def sign_up(tls_port, context, source, forwarded_for=None):
    connection = http.client.HTTPSConnection("127.0.0.1", tls_port, context=context, timeout=10,
                                             source_address=(source, 0))
    headers = {"Host": "auth.example.com", "Content-Type": "application/json"}
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    connection.request("POST", "/v1/accounts:signUp?key=k", body=json.dumps({"returnSecureToken": True}),
                       headers=headers)
    reply = connection.getresponse()
    return reply.status, json.loads(reply.read())


def test_clients_behind_nginx_are_limited_by_their_own_address(proxied):
    tls_port, context = proxied
    assert sign_up(tls_port, context, "127.0.0.2", forwarded_for="198.51.100.1")[0] == 200
    status, body = sign_up(tls_port, context, "127.0.0.2", forwarded_for="198.51.100.2")
    assert status == 400 and body["error"]["message"].startswith("TOO_MANY_ATTEMPTS_TRY_LATER"), body
    # Another client, as nginx saw it, has its own allowance.
    assert sign_up(tls_port, context, "127.0.0.3")[0] == 200


def test_the_request_id_nginx_makes_is_the_one_hearth_answers(proxied):
    tls_port, context = proxied
    connection = http.client.HTTPSConnection("127.0.0.1", tls_port, context=context, timeout=10)
    connection.request("POST", "/v1/accounts:signUp?key=k", body=json.dumps({"returnSecureToken": True}),
                       headers={"Host": "auth.example.com", "Content-Type": "application/json",
                                "X-Request-Id": "made-up-by-the-client"})
    reply = connection.getresponse()
    reply.read()
    request_id = reply.getheader("X-Request-Id")
    # nginx replaces what the client sent with its own $request_id (32 hex digits), and Hearth keeps it.
    assert re.fullmatch(r"[0-9a-f]{32}", request_id or ""), request_id
