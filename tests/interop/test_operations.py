"""The operator's side of a production `hearth serve`: health, readiness, metrics, backups, the systemd unit."""
import re

import pytest

import requests


def test_health_readiness_and_metrics(hearth):
    assert requests.get(f"{hearth.admin_base}/healthz", timeout=10).json() == {"status": "ok"}
    assert requests.get(f"{hearth.admin_base}/readyz", timeout=10).json()["status"] == "ready"
    # The operator's endpoints are not on the API's port.
    assert requests.get(f"{hearth.base}/metrics", timeout=10).status_code == 404

    hearth.post("/v1/accounts:signUp", {"email": "metrics@example.com", "password": "secret-1"})
    hearth.post("/v1/accounts:signInWithPassword", {"email": "metrics@example.com", "password": "wrong-one"})
    text = requests.get(f"{hearth.admin_base}/metrics", timeout=10).text
    assert re.search(r'hearth_sign_ups_total\{provider="password"\} [1-9]', text), text
    assert re.search(r'hearth_sign_ins_total\{provider="password",outcome="failure"\} [1-9]', text), text
    assert 'http_server_request_duration_count{http_route="/v1/accounts:signUp"' in text
    assert re.search(r"hearth_signing_key_age_seconds \d", text)
    # Two hashes ran: each waited for a hash thread, and none is queued now.
    assert re.search(r"hearth_password_hash_wait_seconds_count [2-9]", text), text
    assert re.search(r"hearth_password_hash_queue_depth 0", text), text
    # Labels name providers and routes, never a user.
    assert "metrics@example.com" not in text


def test_a_backup_taken_while_serving_restores_users_and_sessions(hearth, tmp_path):
    import os
    import stat
    import subprocess

    from conftest import BINARY, start

    signed_up = hearth.post("/v1/accounts:signUp",
                            {"email": "backup@example.com", "password": "secret-1", "returnSecureToken": True}).json()
    backup = tmp_path / "hearth-backup.sqlite"
    hearth.cli("backup", str(backup))  # while the server runs
    assert stat.S_IMODE(os.stat(backup).st_mode) == 0o600
    assert not (tmp_path / "hearth-backup.sqlite.partial").exists()

    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database" * 100)
    restored_dir = tmp_path / "restored"
    refused = subprocess.run([BINARY, "restore", str(garbage), "--data-dir", str(restored_dir)], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode != 0 and not (restored_dir / "hearth.sqlite").exists()
    # A sound SQLite file that is not Hearth's is refused too, before anything is replaced.
    import sqlite3
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    refused = subprocess.run([BINARY, "restore", str(foreign), "--data-dir", str(restored_dir)], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode != 0 and "not a Hearth database" in refused.stderr + refused.stdout
    assert not (restored_dir / "hearth.sqlite").exists()

    done = subprocess.run([BINARY, "restore", str(backup), "--data-dir", str(restored_dir)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for restored in start(hearth.project, data_dir=str(restored_dir)):
        refreshed = requests.post(f"{restored.base}/v1/token", params={"key": "k"}, timeout=10,
                                  data={"grant_type": "refresh_token", "refresh_token": signed_up["refreshToken"]})
        assert refreshed.status_code == 200, refreshed.text
        assert refreshed.json()["user_id"] == signed_up["localId"]
        signed_in = restored.post("/v1/accounts:signInWithPassword",
                                  {"email": "backup@example.com", "password": "secret-1"})
        assert signed_in.status_code == 200


def test_a_backup_killed_midway_leaves_the_live_database_and_no_half_file(tmp_path):
    """kill -9 at random moments of `hearth backup` on a database of a few MiB: the live database stays intact and
    serving, FILE is either absent or a complete backup, and the next backup succeeds. A server of its own: its
    20,000 imported users must not crowd other tests' listings."""
    from conftest import start

    for hearth in start("backup-kill"):
        backup_killed_midway(hearth, tmp_path)


def backup_killed_midway(hearth, tmp_path):
    import base64
    import json
    import os
    import random
    import signal
    import sqlite3
    import subprocess
    import time

    from conftest import BINARY

    users = tmp_path / "users.json"
    with open(users, "w") as f:
        json.dump({"users": [{"localId": f"u{i:06d}", "email": f"u{i}@example.com",
                              "passwordHash": base64.b64encode(os.urandom(64)).decode(),
                              "salt": base64.b64encode(os.urandom(12)).decode(), "displayName": "x" * 200}
                             for i in range(20000)]}, f)
    hearth.cli("users", "import", str(users), "--hash-algo", "SCRYPT", "--hash-key",
               base64.b64encode(os.urandom(64)).decode(), "--salt-separator", "Bw==", "--rounds", "8",
               "--mem-cost", "14")
    live = os.path.join(hearth.data_dir, "hearth.sqlite")
    target = tmp_path / "backup.sqlite"
    rng = random.Random(7)
    interrupted = 0
    for attempt in range(12):
        if target.exists():
            target.unlink()
        proc = subprocess.Popen([BINARY, "backup", str(target), "--data-dir", hearth.data_dir,
                                 "--project", hearth.project], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Wait for the first progress report, then kill at a random moment after it.
        first = proc.stderr.read(1)
        time.sleep(rng.uniform(0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        if first and proc.returncode == -signal.SIGKILL and not target.exists():
            interrupted += 1
        if target.exists():
            # A backup that finished before the kill is whole.
            with sqlite3.connect(f"file:{target}?mode=ro", uri=True) as db:
                assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                assert db.execute("SELECT count(*) FROM users").fetchone()[0] >= 20000
        # The live database serves and is intact.
        up = hearth.post("/v1/accounts:signUp", {"returnSecureToken": True})
        assert up.status_code == 200, up.text
    assert interrupted > 0, "no kill landed during a backup; the database is too small to test this"
    with sqlite3.connect(f"file:{live}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    if target.exists():
        target.unlink()
    hearth.cli("backup", str(target))
    with sqlite3.connect(f"file:{target}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM users").fetchone()[0] >= 20012


def test_the_systemd_unit_is_valid(tmp_path):
    """docs/deploy/hearth.service, pointed at the built binary, passes systemd's own checker."""
    import os
    import shutil
    import subprocess

    from conftest import BINARY

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = open(os.path.join(os.path.dirname(__file__), "../../docs/deploy/hearth.service")).read()
    assert "ExecStart=/usr/local/bin/hearth serve" in unit
    path = tmp_path / "hearth.service"
    path.write_text(unit.replace("/usr/local/bin/hearth", os.path.abspath(BINARY)))
    checked = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and checked.stderr.strip() == "", checked.stderr
    # The flags it passes exist.
    helped = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True, timeout=60)
    assert "--config" in helped.stdout and "--data-dir" in helped.stdout


def test_the_grafana_dashboard_names_only_metrics_hearth_exports(hearth):
    """docs/deploy/grafana-dashboard.json cannot drift from the metric names: each one it queries is on /metrics
    now, or (for sends that did not happen in this test) is a label Hearth's sources define."""
    import glob
    import json
    import os

    root = os.path.join(os.path.dirname(__file__), "../..")
    dashboard = json.load(open(os.path.join(root, "docs/deploy/grafana-dashboard.json")))
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    names = {re.sub(r"_(bucket|count|sum)$", "", n) for e in exprs for n in re.findall(r"\b((?:hearth|http_server)_\w+)", e)}
    assert len(names) >= 10

    hearth.post("/v1/accounts:signUp", {"email": "dash@example.com", "password": "secret-1"})
    text = requests.get(f"{hearth.admin_base}/metrics", timeout=10).text
    sources = "".join(open(f).read() for f in glob.glob(os.path.join(root, "Sources/**/*.swift"), recursive=True))
    for name in sorted(names):
        assert re.search(rf"^{name}(_bucket|_count|_sum)?[{{ ]", text, re.M) or f'"{name}"' in sources, name
