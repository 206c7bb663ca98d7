"""What `uac demo` must show and leave: shared by the tests that build the demo.

The demo is built once per backend run: on PostgreSQL by tests/test_cli.py (text, then a
rebuild on a log of its own), on DuckDB by tests/test_golden.py (`--json`, whose "tour" is
the same lines the text output prints, one per `out` call; runtime/cli/ops.py).
"""

from __future__ import annotations

from pathlib import Path

import duckdb


def head(home: str | Path) -> tuple[str, ...] | None:
    """The last fact's chain hash in the workspace file (its log's head on DuckDB, its copy
    of the log on PostgreSQL)."""
    con = duckdb.connect(str(Path(home) / "uac.duckdb"), read_only=True)
    try:
        return con.execute("SELECT hash FROM facts ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        con.close()


def assert_tour(out: str) -> None:
    """The tour's claims: imports, the verified chain, the alerts a dialogue alone raises
    (each on the session that justifies it, with why and next step), a correction, and the
    console's address and key at the end."""
    assert "imported   21 travel.trips" in out and "climbs: date: date" in out
    assert "Hash chain: verified over" in out
    # Step 15: a dialogue alone raises a travel, a schedule, a health and a finance alert and
    # a weekday series' clash, each on the session that justifies it, with why and next step.
    step = out[out.index("15. Only a conversation") : out.index("16. Many callers")]
    raised, day = [], ""
    for line in step.splitlines():
        if line.startswith("   20"):
            day = line.split()[0]
        elif line.lstrip().startswith("ALERT"):
            raised.append((day, line.split("(")[1].split(")")[0]))
    assert raised == [
        ("2025-02-10", "visa_for_trip"),
        ("2025-02-10", "passport_validity_for_trip"),
        ("2025-02-20", "event_during_trip"),
        ("2025-03-01", "drug_allergy"),
        ("2025-03-08", "budget_exceeded"),
        ("2025-03-29", "recurring_event_collision"),  # the weekday series, not the Saturday
    ]
    assert step.count("why: ") == 6 and step.count("next: ") == 6
    # The passport said again differently: the later statement wins, its alert no longer
    # applies, and the contradiction is kept for an agent to confirm.
    corrected = step[step.index("   2025-02-12") : step.index("   2025-02-20")]
    assert "no longer applies (passport_validity_for_trip)" in corrected
    assert "identity.passport.expiry_date 2029-06-20 over 2025-06-20 (the later statement)" in (
        corrected
    )
    assert "(Monday to Friday at 08:00)" in step
    *_, url, _, token = out.splitlines()  # it ends with the console's address and a key
    assert url.strip() == "http://127.0.0.1:8765/console/" and token.strip().startswith("uac_")
