"""The console's user search as an operator uses it, for scripts/bench-scale --search: a console admin made with
`hearth console-admins create`, set up through its link (password, TOTP computed here), signed in with a recovery
code, then `GET /console/users?q=…` timed over loopback for e-mail, E.164 and uid prefixes, first page. Standard
library only."""
import base64
import hashlib
import hmac
import http.cookiejar
import json
import os
import random
import re
import struct
import subprocess
import time
import urllib.parse
import urllib.request

PASSWORD = "a long console password"
ADMIN = "ops@bench.test"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
UID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Each search, several queries of its kind (first page each), as the console's form sends them.
QUERIES = [
    ("e-mail prefix", [{"q": q} for q in ["abc", "mq", "zz", "kx", "q"]]),
    ("E.164 prefix", [{"q": q} for q in ["+1200", "+1555", "+1987", "+1314", "+12345"]]),
    ("uid prefix", [{"q": q} for q in ["Ab", "x9", "Q", "mm", "Z0"]]),
    ("e-mail prefix, disabled only (every 50th)", [{"q": q, "status": "disabled"} for q in ["a", "m", "z"]]),
    ("no query, anonymous only (none exist: the walk's bound)", [{"anonymous": "on"}]),
]


def export_file(path, users, seed=28):
    """`users` users as a Firebase export (no passwords): Firebase-like random 28-character uids, addresses of six
    random letters and a number, unique +1 phone numbers, every 50th disabled, every other one unverified."""
    rng = random.Random(seed)
    phones = rng.sample(range(2_000_000_000, 10_000_000_000), users)
    with open(path, "w") as f:
        f.write('{"users":[')
        for i in range(users):
            if i:
                f.write(",")
            f.write(json.dumps({
                "localId": "".join(rng.choices(UID_ALPHABET, k=28)),
                "email": "".join(rng.choices(LETTERS, k=6)) + f"{i}@example.com",
                "phoneNumber": f"+1{phones[i]}", "emailVerified": i % 2 == 0, "disabled": i % 50 == 0,
                "createdAt": "1500000000000"}))
        f.write("]}")


def totp(secret, at=None):
    """RFC 6238: six digits, 30-second steps, SHA-1."""
    key = base64.b32decode(secret.replace(" ", "").upper() + "=" * (-len(secret.replace(" ", "")) % 8))
    digest = hmac.new(key, struct.pack(">Q", int((at or time.time()) // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


class Console:
    """A signed-in console session on the operator listener at `base`."""

    def __init__(self, binary, base, store_flags):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        printed = subprocess.run([binary, "console-admins", "create", "--email", ADMIN, "--console-url", base,
                                  *store_flags], capture_output=True, text=True, check=True).stdout
        setup = self.get(printed.strip().splitlines()[-1])
        secret = re.search(r'id="totp-secret">([^<]+)<', setup).group(1)
        token = re.search(r'name="token" value="([^"]+)"', setup).group(1)
        done = self.post("/console/setup", {"csrf": self.csrf(setup), "token": token, "password": PASSWORD,
                                            "confirm": PASSWORD, "code": totp(secret)})
        codes = re.findall(r"<li><code>([^<]+)</code></li>", done)
        if not codes:
            raise RuntimeError(f"console setup failed: {done[:500]}")
        page = self.get("/console/sign-in")
        step = self.post("/console/sign-in", {"csrf": self.csrf(page), "email": ADMIN, "password": PASSWORD})
        proof = re.search(r'name="proof" value="([^"]+)"', step).group(1)
        # The setup used this step's TOTP code; a recovery code signs in without waiting for the next step.
        users = self.post("/console/sign-in/code", {"csrf": self.csrf(step), "email": ADMIN, "proof": proof,
                                                     "code": codes[0]})
        if 'id="q"' not in users:
            raise RuntimeError(f"console sign-in failed: {users[:500]}")

    @staticmethod
    def csrf(page):
        return re.search(r'name="csrf" value="([^"]+)"', page).group(1)

    def get(self, url):
        with self.opener.open(url if url.startswith("http") else self.base + url, timeout=60) as reply:
            return reply.read().decode()

    def post(self, path, form):
        request = urllib.request.Request(self.base + path, data=urllib.parse.urlencode(form).encode(),
                                         headers={"Origin": self.base})
        with self.opener.open(request, timeout=60) as reply:
            return reply.read().decode()

    def search(self, query):
        """Seconds for one first page of `query` (the whole request over loopback), and its rows."""
        started = time.perf_counter()
        page = self.get("/console/users?" + urllib.parse.urlencode(query))
        seconds = time.perf_counter() - started
        table = page.split('id="users"', 1)[1] if 'id="users"' in page else ""
        return seconds, table.count("<tr") - table.count("<thead")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(console, pid, repeats=5):
    """Each kind of search: every query `repeats` times after one warm-up; the median and worst request in ms, the
    server's CPU per search (from /proc: its own work, not the database's processes), rows per page."""
    results = []
    for kind, queries in QUERIES:
        times, rows, cpu = [], [], 0.0
        for query in queries:
            console.search(query)
            before = cpu_seconds(pid)
            for _ in range(repeats):
                seconds, count = console.search(query)
                times.append(seconds * 1000)
                rows.append(count)
            cpu += cpu_seconds(pid) - before
        times.sort()
        results.append({"search": kind, "queries": queries, "requests": len(times),
                        "median_ms": times[len(times) // 2], "max_ms": times[-1],
                        "server_cpu_ms": cpu / len(times) * 1000, "min_rows": min(rows), "max_rows": max(rows)})
    return results
