"""Passkey sign-ins for scripts/bench: users enrolled through the v2 wire by a software authenticator, and
`passkeySignIn:finalize` bodies prepared off the clock for wrk to send once each (bench-lua/passkey.lua).

A challenge is single-use and made by the server, so the bodies cannot be made during the run: the challenges are
fetched with `passkeySignIn:start` first and the assertions signed (ES256, `cryptography`) before wrk starts. The
credentials carry the flags of a synced passkey (backup eligible and backed up) and a counter that stays 0, as
Apple's and Google's passkeys do, so bodies answered in any order are all valid; a device-bound credential would
refuse a counter that arrives out of order. Attestation is `none` (its CBOR is written here: a map, byte and text
strings, small integers). Standard library and `cryptography` only, so the benchmark needs no test venv."""
import base64
import hashlib
import http.client
import json
import os
import sqlite3
import struct
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

RP_ID = "localhost"
ORIGIN = "http://localhost:5173"
CONFIG = {"rpId": RP_ID, "expectedOrigins": [ORIGIN]}
# WebAuthn authenticator-data flags: user present, user verified, backup eligible, backed up, attested data.
UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40
RP_ID_HASH = hashlib.sha256(RP_ID.encode()).digest()
# Every assertion's authenticator data: the same flags, counter 0.
ASSERTION_DATA = RP_ID_HASH + bytes([UP | UV | BE | BS]) + struct.pack(">I", 0)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def cbor(value) -> bytes:
    """Definite-length CBOR of what an attestation object holds: ints, byte and text strings, maps."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | extra]) + n.to_bytes(size, "big")
        raise ValueError(n)
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        return head(3, len(value.encode())) + value.encode()
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


def client_data(kind: str, challenge: bytes) -> bytes:
    return json.dumps({"type": kind, "challenge": b64url(challenge), "origin": ORIGIN, "crossOrigin": False},
                      separators=(",", ":")).encode()


class Client:
    """One keep-alive HTTP/1.1 connection to the server (urllib opens one per request)."""

    def __init__(self, base):
        self.connection = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=30)

    def post(self, path, body):
        self.connection.request("POST", f"{path}?key=bench", json.dumps(body),
                                {"Content-Type": "application/json"})
        reply = self.connection.getresponse()
        text = reply.read()
        return reply.status, json.loads(text)

    def ok(self, path, body):
        status, answer = self.post(path, body)
        if status != 200:
            raise RuntimeError(f"{path}: {status} {answer}")
        return answer

    def close(self):
        self.connection.close()


class Passkey:
    def __init__(self, uid, credential_id, user_handle, key):
        self.uid, self.credential_id, self.user_handle, self.key = uid, credential_id, user_handle, key


def enrol(base, users):
    """`users` anonymous users, each enrolling one passkey through passkeyEnrollment:start and :finalize; returns the
    passkeys and the last finalize answer (an ID token of a user with a passkey)."""
    client = Client(base)
    passkeys, answer = [], None
    try:
        for _ in range(users):
            user = client.ok("/v1/accounts:signUp", {"returnSecureToken": True})
            options = client.ok("/v2/accounts/passkeyEnrollment:start",
                                {"idToken": user["idToken"]})["credentialCreationOptions"]
            key = ec.generate_private_key(ec.SECP256R1())
            numbers = key.public_key().public_numbers()
            cose = cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
            credential_id = os.urandom(16)
            auth_data = (RP_ID_HASH + bytes([UP | UV | BE | BS | AT]) + struct.pack(">I", 0) + bytes(16)
                         + struct.pack(">H", len(credential_id)) + credential_id + cose)
            attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
            answer = client.ok("/v2/accounts/passkeyEnrollment:finalize", {
                "idToken": user["idToken"], "name": "bench",
                "authenticatorRegistrationResponse": {
                    "id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key",
                    "response": {"clientDataJSON": b64url(client_data("webauthn.create", unb64(options["challenge"]))),
                                 "attestationObject": b64url(attestation)}}})
            passkeys.append(Passkey(user["localId"], credential_id, unb64(options["user"]["id"]), key))
    finally:
        client.close()
    return passkeys, answer


def challenges(base, count, workers=4):
    """`count` sign-in challenges from passkeySignIn:start, over `workers` keep-alive connections."""
    got, failures = [], []
    lock = threading.Lock()
    share = [count // workers + (1 if i < count % workers else 0) for i in range(workers)]

    def fetch(n):
        client = Client(base)
        mine = []
        try:
            for _ in range(n):
                mine.append(unb64(client.ok("/v2/accounts/passkeySignIn:start", {})
                                  ["credentialRequestOptions"]["challenge"]))
        except Exception as error:  # noqa: BLE001 - reported by the caller
            failures.append(error)
        finally:
            client.close()
        with lock:
            got.extend(mine)

    threads = [threading.Thread(target=fetch, args=(n,)) for n in share]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(f"passkeySignIn:start failed: {failures[0]}")
    return got


def assertion_body(passkey, challenge):
    """A finalize body as the JS SDK's branch sends it (base64url), for `challenge`, signed by `passkey`."""
    cdj = client_data("webauthn.get", challenge)
    signature = passkey.key.sign(ASSERTION_DATA + hashlib.sha256(cdj).digest(), ec.ECDSA(hashes.SHA256()))
    return json.dumps({"authenticatorAuthenticationResponse": {
        "id": b64url(passkey.credential_id), "rawId": b64url(passkey.credential_id), "type": "public-key",
        "response": {"clientDataJSON": b64url(cdj), "authenticatorData": b64url(ASSERTION_DATA),
                     "signature": b64url(signature), "userHandle": b64url(passkey.user_handle)}}},
        separators=(",", ":"))


def prepare(base, passkeys, count, path):
    """Writes `count` finalize bodies to `path`, one a line, each for its own fresh challenge, the users taken in
    turn. Returns the seconds spent fetching and signing (off the clock)."""
    started = time.monotonic()
    fetched = challenges(base, count)
    with open(path, "w") as f:
        for i, challenge in enumerate(fetched):
            f.write(assertion_body(passkeys[i % len(passkeys)], challenge) + "\n")
    return time.monotonic() - started


def replays_refused(base, path, n=20):
    """Sends `n` bodies of a finished run again: each must be refused (its challenge was used), and none may issue a
    token. Returns how many were refused with PASSKEY_CHALLENGE_TIMEOUT. The first line is skipped: wrk calls the
    first thread's request() once before the run to check what it makes, so that body is taken but never sent."""
    client = Client(base)
    refused = 0
    try:
        with open(path) as f:
            next(f)
            for _, line in zip(range(n), f):
                status, answer = client.post("/v2/accounts/passkeySignIn:finalize", json.loads(line))
                message = answer.get("error", {}).get("message", "")
                if status == 400 and message.startswith("PASSKEY_CHALLENGE_TIMEOUT") and "idToken" not in answer:
                    refused += 1
    finally:
        client.close()
    return refused


def user_read_cost(database, project, repeat=20, rounds=3, users=256):
    """The store's user read with and without its passkey subquery, on the benchmark's SQLite file (read-only), for
    up to `users` users with a passkey and as many without: µs per read (each list read `repeat` times per pass; the
    median of `rounds` passes) and the statement's plan. The statements mirror SQLiteUserRow's: the user, its links,
    and its passkeys as one JSON array, both through their (project_id, uid) indexes."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        info = list(db.execute("PRAGMA table_info(passkey_credentials)"))
        members = ", ".join(f"'{c[1]}', hex(p.{c[1]})" if c[2] == "BLOB" else f"'{c[1]}', p.{c[1]}"
                            for c in info if c[1] not in ("project_id", "uid"))
        subquery = (f"(SELECT json_group_array(json_object({members})) FROM passkey_credentials p "
                    "INDEXED BY passkey_credentials_user WHERE p.project_id = u.project_id AND p.uid = u.uid)")
        tail = ("FROM users u LEFT JOIN provider_links l INDEXED BY provider_links_user "
                "ON l.project_id = u.project_id AND l.uid = u.uid "
                "WHERE u.project_id = ? AND u.uid = ? ORDER BY l.provider_id")
        statements = {"without": f"SELECT u.*, l.* {tail}", "with": f"SELECT u.*, l.*, {subquery} {tail}"}
        holders = [r[0] for r in db.execute("SELECT uid FROM passkey_credentials WHERE project_id = ? LIMIT ?",
                                            (project, users))]
        others = [r[0] for r in db.execute(
            "SELECT uid FROM users WHERE project_id = ? AND uid NOT IN "
            "(SELECT uid FROM passkey_credentials WHERE project_id = ?) LIMIT ?", (project, project, len(holders)))]
        plan = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {statements['with']}", (project, holders[0]))]
        result = {"plan": plan, "passkey_users": len(holders), "other_users": len(others)}
        for users, name in ((holders, "passkey_users"), (others, "other_users")):
            if not users:
                continue
            for kind, sql in statements.items():
                passes = []
                for _ in range(rounds):
                    started = time.perf_counter()
                    for _ in range(repeat):
                        for uid in users:
                            db.execute(sql, (project, uid)).fetchall()
                    passes.append((time.perf_counter() - started) / (repeat * len(users)) * 1e6)
                result[f"{name}_{kind}_us"] = sorted(passes)[len(passes) // 2]
        return result
    finally:
        db.close()
