"""Golden output: the compiled demo workspace must match the committed `generated/` bytes.

Regenerate after an intended change with:
    UAC_REGENERATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from uac.compiler.loader import SIGNATURE, subject_dir
from uac.fact_log.addressing import parse_subject
from uac.runtime.examples.demo import PERSONA, run_demo

pytestmark = [
    pytest.mark.usefixtures("backend"),
    # Fact ids (chain hashes) and seqs, which the generated files quote, differ in a log in
    # PostgreSQL (one chain per subject; seq from a sequence, with gaps). Same log => same
    # bytes on PostgreSQL: test_scopes.py::test_same_logs_give_byte_identical_code.
    pytest.mark.duckdb_only("the committed bytes quote the DuckDB log's fact ids and seqs"),
]

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "generated" / "default" / "user" / PERSONA


def _files(directory: Path) -> dict[str, bytes]:
    # files.sig is keyed with the workspace's own secret: it differs in every workspace.
    return {
        p.name: p.read_bytes()
        for p in sorted(directory.iterdir())
        if p.is_file() and p.name != SIGNATURE
    }


def test_demo_compiles_to_the_committed_golden_output(tmp_path: Path) -> None:
    home = tmp_path / "demo"
    lines: list[str] = []
    assert run_demo(home, fresh=False, out=lines.append) == 0
    base = subject_dir(home, parse_subject(PERSONA))
    current = base / "versions" / (base / "current").read_text().strip()
    produced = _files(current)
    if os.environ.get("UAC_REGENERATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        GOLDEN.mkdir(parents=True)
        for name, data in produced.items():
            (GOLDEN / name).write_bytes(data)
    golden = _files(GOLDEN)
    assert sorted(produced) == sorted(golden)
    for name in golden:
        assert produced[name] == golden[name], f"generated/{name} differs from the compiled demo"
