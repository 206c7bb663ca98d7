"""A one-message `uac add` sets its own short-lived process up for one message: the cyclic
collector paused and NumPy's BLAS on one thread while the verb runs, both as they were
afterwards, and the message learned exactly as with neither (runtime/cli/writes.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("backend")  # the add's workspace on DuckDB and PostgreSQL

# Runs `uac init` and `uac add` in a fresh interpreter (numpy not yet imported, as in the
# `uac` command), recording the process state the verb ran under and the state after.
PROBE = """
import gc, json, os, sys
from uac.runtime.api import verbs
from uac.runtime.cli import main

seen = []
real_run = verbs.run

def run(mem, verb, subject, given):
    seen.append({"gc": gc.isenabled(), "blas": os.environ.get("OPENBLAS_NUM_THREADS")})
    return real_run(mem, verb, subject, given)

verbs.run = run
home = sys.argv[1]
assert main(["--home", home, "init"]) == 0
assert main(["--home", home, "--json", "add", "alice", sys.argv[2]]) == 0
print(json.dumps({"during": seen, "after": {
    "gc": gc.isenabled(), "blas": os.environ.get("OPENBLAS_NUM_THREADS"),
    "numpy": "numpy" in sys.modules}}))
"""


def _probe(
    home: Path, message: str = "My sister Ana lives in Porto.", **env: str
) -> tuple[dict, dict]:
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home), message],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.strip().splitlines()  # init's line, add's JSON document, the state
    learned = json.loads("\n".join(lines[lines.index("{") : -1]))
    return learned, json.loads(lines[-1])


def test_an_add_runs_without_the_collector_and_on_one_blas_thread_then_restores_both(
    tmp_path: Path,
) -> None:
    learned, state = _probe(tmp_path / "a")
    assert state["during"][-1] == {"gc": False, "blas": "1"}
    assert state["after"] == {"gc": True, "blas": None, "numpy": True}
    assert [(f["path"], f["value"]) for f in learned["facts"]] == [
        ("contacts.contacts", {"name": "Ana", "relationship": "sister"})
    ]
    # a BLAS thread count the caller chose is kept; the same message learns the same fact
    again, kept = _probe(tmp_path / "b", OPENBLAS_NUM_THREADS="2")
    assert kept["during"][-1] == {"gc": False, "blas": "2"}
    assert kept["after"]["blas"] == "2"
    assert [(f["path"], f["value"], f["confidence"]) for f in again["facts"]] == [
        (f["path"], f["value"], f["confidence"]) for f in learned["facts"]
    ]


def test_an_add_no_frame_can_read_loads_neither_numpy_nor_the_encoder(tmp_path: Path) -> None:
    """No window of "I like green tea." says a frame's cue or a time an uncued frame could
    fill (frames.votes' pre-filter): nothing is encoded, so the process never imports NumPy
    (encoder_files answers whether the encoder is there); a message that is encoded does."""
    learned, state = _probe(tmp_path / "a", "I like green tea.")
    assert learned["facts"] == [] and learned["hints"] == []
    assert state["after"]["numpy"] is False
