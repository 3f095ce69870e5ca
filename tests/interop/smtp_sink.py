#!/usr/bin/env python3
"""A real SMTP server on 127.0.0.1 for Hearth's e-mail tests (aiosmtpd).

Prints "READY <port>" once it accepts connections, then writes each received message to
<out>/<n>.json: the envelope, whether it arrived over TLS and authenticated, and the message as Python's
e-mail parser reads it (decoded headers, the text/plain and text/html parts). Runs until stdin closes.

Modes: starttls (STARTTLS required before AUTH/MAIL), tls (implicit TLS), plain (no TLS offered),
silent (accepts connections and never answers), unconfirmed (plain; keeps each message and never answers its
final dot, as a relay whose 250 is lost), refusing (plain; keeps each message and answers its final dot with 554).
With --tls-dir, a throwaway CA (ca.pem) and a server
certificate for localhost/127.0.0.1 signed by it are generated there.
"""
import argparse
import asyncio
import datetime
import email
import email.policy
import ipaddress
import json
import os
import socket
import ssl
import sys
import threading


def make_certificates(directory):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Hearth test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    with open(os.path.join(directory, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(os.path.join(directory, "server.pem"), "wb") as f:
        f.write(cert.public_bytes(pem))
    with open(os.path.join(directory, "server.key"), "wb") as f:
        f.write(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["starttls", "tls", "plain", "silent", "unconfirmed", "refusing"], required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tls-dir")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--exclude-plain", action="store_true", help="offer AUTH LOGIN only")
    args = parser.parse_args()

    port = free_port()
    if args.mode == "silent":
        listener = socket.socket()
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        held = []
        threading.Thread(target=lambda: [held.append(listener.accept()) for _ in iter(int, 1)], daemon=True).start()
        print(f"READY {port}", flush=True)
        sys.stdin.read()
        return

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    context = None
    if args.tls_dir:
        make_certificates(args.tls_dir)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(args.tls_dir, "server.pem"), os.path.join(args.tls_dir, "server.key"))

    counter = {"n": 0}

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
            text = message.get_body(("plain",))
            html = message.get_body(("html",))
            record = {
                "mailFrom": envelope.mail_from,
                "rcptTos": envelope.rcpt_tos,
                "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
                "authenticated": bool(session.authenticated),
                "headers": {k: str(v) for k, v in message.items()},
                "contentType": message.get_content_type(),
                "parts": [part.get_content_type() for part in message.iter_parts()] if message.is_multipart() else [],
                "text": text.get_content() if text is not None else None,
                "html": html.get_content() if html is not None else None,
            }
            counter["n"] += 1
            path = os.path.join(args.out, f"{counter['n']:04d}.json")
            with open(path + ".tmp", "w") as f:
                json.dump(record, f)
            os.replace(path + ".tmp", path)
            if args.mode == "unconfirmed":
                await asyncio.sleep(3600)
            if args.mode == "refusing":
                return "554 Message refused"
            return "250 Message accepted"

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == (args.user or "")
            and auth_data.password.decode() == (args.password or "")
        )
        return AuthResult(success=ok, handled=False)

    options = {}
    if args.user:
        # Implicit TLS is TLS from the first byte; aiosmtpd only tracks STARTTLS for auth_require_tls.
        options.update(authenticator=authenticator, auth_require_tls=args.mode == "starttls")
        if args.exclude_plain:
            options["auth_exclude_mechanism"] = ["PLAIN"]
    if args.mode == "starttls":
        options.update(tls_context=context, require_starttls=True)
    elif args.mode == "tls":
        options.update(ssl_context=context)
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print(f"READY {port}", flush=True)
    try:
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
