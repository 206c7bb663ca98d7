"""`uac serve` ops endpoints: Prometheus-style /metrics and /readyz with a shared database."""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.request
from pathlib import Path

import pytest
from test_serve import serving

from uac import Memory


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _value(text: str, series: str) -> float:
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.M)
    assert match, f"{series} not in metrics:\n{text}"
    return float(match.group(1))


def test_metrics_and_readiness_of_a_node_on_postgres(tmp_path: Path, pg_url: str) -> None:
    home = tmp_path / "node"
    with Memory(home, create=True, react=False, log_db=pg_url) as mem:
        mem.set("maya", "identity.name", "Maya", now=dt.datetime(2025, 1, 10))
    with serving(home) as info:
        status, body = _get(info["url"] + "/readyz")
        ready = json.loads(body)
        assert status == 200 and ready["ready"] is True and ready["database"] == "ok"
        _get(info["url"] + "/healthz")
        status, text = _get(info["url"] + "/metrics")
        assert status == 200
        assert _value(text, 'uac_jobs{state="queued"}') == 1
        assert _value(text, 'uac_jobs{state="dead"}') == 0
        assert _value(text, "uac_jobs_oldest_lag_seconds") >= 0
        assert _value(text, "uac_job_failures_total") == 0
        count = _value(text, "uac_http_request_duration_seconds_count")
        assert (
            count >= 2
            and _value(text, 'uac_http_request_duration_seconds_bucket{le="+Inf"}') == count
        )
        assert _value(text, 'uac_http_requests_total{code="200"}') >= 2
        assert "maya" not in text  # aggregates only: no subject or tenant names


@pytest.mark.usefixtures("backend")
@pytest.mark.duckdb_only("the metrics of an embedded workspace; a node on PostgreSQL is below")
def test_metrics_of_an_embedded_workspace(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    Memory(home, create=True).close()
    with serving(home) as info:
        status, text = _get(info["url"] + "/metrics")
        assert status == 200 and "uac_http_request_duration_seconds_bucket" in text
        assert "uac_jobs" not in text and "# TYPE uac_outbox_rows gauge" in text
        assert json.loads(_get(info["url"] + "/readyz")[1])["ready"] is True
