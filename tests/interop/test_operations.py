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
