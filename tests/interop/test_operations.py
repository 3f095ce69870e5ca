"""The operator's listener of a production `hearth serve`: health, readiness and Prometheus metrics."""
import re

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
