"""Golden output: the compiled demo workspace must match the committed `tests/golden/` bytes.

Regenerate after an intended change with:
    UAC_REGENERATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.demo_tour import assert_tour, head
from uac.compiler.loader import SIGNATURE, subject_dir, version_name
from uac.fact_log.addressing import default_home, parse_subject
from uac.runtime.cli import main
from uac.runtime.examples.demo import PERSONA

pytestmark = [
    pytest.mark.usefixtures("backend"),
    # Fact ids (chain hashes) and seqs, which the generated files quote, differ in a log in
    # PostgreSQL (one chain per subject; seq from a sequence, with gaps). Same log => same
    # bytes on PostgreSQL: test_scopes.py::test_same_logs_give_byte_identical_code.
    pytest.mark.duckdb_only("the committed bytes quote the DuckDB log's fact ids and seqs"),
]

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "default" / "user" / PERSONA


def _files(directory: Path) -> dict[str, bytes]:
    # files.sig is keyed with the workspace's own secret: it differs in every workspace.
    return {
        p.name: p.read_bytes()
        for p in sorted(directory.iterdir())
        if p.is_file() and p.name != SIGNATURE
    }


def test_demo_compiles_to_the_committed_golden_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Built as `uac demo --json` builds it (in process): its output is one JSON document, the
    # check tests/test_cli_json.py makes of every other command (a demo build is seconds of
    # CPU: built once for both checks; on PostgreSQL tests/test_cli.py's rebuild makes it).
    monkeypatch.delenv("UAC_URL", raising=False)
    monkeypatch.delenv("UAC_API_KEY", raising=False)
    home = tmp_path / "demo"
    assert main(["--home", str(home), "demo", "--json"]) == 0
    out = capsys.readouterr().out
    try:
        document = json.loads(out)  # "Extra data" if a second document follows
    except ValueError as exc:
        raise AssertionError(f"uac demo --json: not one JSON document ({exc}):\n{out}") from None
    # The demo is built on DuckDB here alone (tests/test_cli.py builds it on PostgreSQL): its
    # tour (the lines the text output prints) and a second run's refusal are checked here.
    assert_tour("\n".join(document["tour"]) + "\n")
    first = head(home)
    assert main(["--home", str(home), "demo"]) == 1
    refused = capsys.readouterr()
    assert "pass --fresh" in refused.err and refused.out == ""
    assert first is not None and head(home) == first  # the refusal touched nothing
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
        assert produced[name] == golden[name], (
            f"{(GOLDEN / name).relative_to(ROOT)} differs from the compiled demo"
        )


def test_the_top_level_generated_directory_documents_the_compilers_output_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # generated/README.md states where compiled modules go; this keeps it true.
    readme = (ROOT / "generated" / "README.md").read_text(encoding="utf-8")
    workspace = Path("<workspace>")
    first = subject_dir(workspace, parse_subject("alice")) / "versions" / version_name(1)
    assert f"    {first}/\n" in readme
    for name in ("UAC_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    root = subject_dir(default_home(), parse_subject("alice")).parents[2]
    assert f"`~/{root.relative_to(tmp_path)}/`" in readme
