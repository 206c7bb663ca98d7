"""The write pipeline's shape: stages never call back up, and the pipeline calls each once."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

import uac
from uac import Memory
from uac.fact_log.pipeline import build_message_batch

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the pipeline's stages and their imports alone: no log")

ROOT = Path(uac.__file__).parent
EXTRACTION = ROOT / "fact_log" / "extraction"
NOW = dt.datetime(2025, 3, 1, 10, 0)

# Pipeline order: a stage may import what comes before it (and the shared `candidate`),
# never what comes after it, and never the pipeline.
ORDER = ["candidate", "policy", "safety", "patterns", "llm", "markdown", "evidence", "gate"]
LATER = {
    "policy": {"safety", "patterns", "llm", "markdown", "evidence", "gate", "batch"},
    "safety": {"patterns", "llm", "markdown", "evidence", "gate", "batch"},
    "patterns": {"llm", "markdown", "gate", "batch", "safety"},
    "llm": {"patterns", "markdown", "gate", "batch"},
    "markdown": {"patterns", "llm", "gate", "batch"},
    "evidence": {"safety", "patterns", "llm", "markdown", "gate", "batch"},
    "gate": {"patterns", "llm", "markdown", "batch"},
    "batch": {"patterns", "evidence"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def _stage_files(stage: str) -> list[Path]:
    folder = EXTRACTION / stage
    return sorted(folder.glob("*.py")) if folder.is_dir() else [EXTRACTION / f"{stage}.py"]


@NO_LOG
@pytest.mark.parametrize("stage", sorted(LATER))
def test_a_stage_never_imports_a_later_stage_or_the_pipeline(stage: str) -> None:
    for path in _stage_files(stage):
        names = _imports(path)
        assert not any(n.startswith("uac.fact_log.pipeline") for n in names), path
        for later in LATER[stage]:
            mod = f"uac.fact_log.extraction.{later}"
            # `patterns.text` helpers (sentence spans) are not the pattern pass itself.
            bad = [
                n
                for n in names
                if (n == mod or n.startswith(mod + "."))
                and not n.startswith("uac.fact_log.extraction.patterns.text")
            ]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@NO_LOG
def test_the_gate_and_the_llm_extractor_run_no_other_stage() -> None:
    gate = (EXTRACTION / "gate.py").read_text(encoding="utf-8")
    assert "scan(" not in gate and "extract(" not in gate
    llm = (EXTRACTION / "llm.py").read_text(encoding="utf-8")
    assert "gate(" not in llm and "import extract" not in llm
    assert not (EXTRACTION / "rules.py").exists()
    for layer in ("fact_log", "compiler", "checks", "runtime"):
        assert not list((ROOT / layer).rglob("rules.py")), "one name, one meaning: no rules.py"


@NO_LOG
def test_the_pipeline_calls_each_stage_once() -> None:
    source = (ROOT / "fact_log" / "pipeline.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    fn = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "build_message_batch"
    )
    calls = [
        c.func.id if isinstance(c.func, ast.Name) else c.func.attr
        for c in ast.walk(fn)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name | ast.Attribute)
    ]
    for stage in ("check_message", "scan", "extract", "extract_with_llm", "message_batch"):
        assert calls.count(stage) == 1, stage


def test_every_extractor_yields_to_the_same_gate(tmp_path: Path) -> None:
    """A pattern candidate and a caller's candidate meet the same refusals, with reasons."""
    from uac.fact_log.extraction.candidate import Candidate

    text = "My passport expires on 14 August 2027. My API key is sk-abcdefghijklmnopqrstuvwx1234"
    at = text.index("sk-")
    secret = text[at:]
    fake = Candidate("attribute", "preferences.signature", secret, "assert", secret, at, 1.0)
    with Memory(tmp_path / "ws", create=True) as mem:
        batch = build_message_batch(
            mem.catalog,
            mem.address("alice"),
            text,
            observed_at=NOW,
            recorded_at=NOW,
            candidates=[fake],
        )
        mem.store.append(batch)
        assert [f.path for f in batch.facts] == ["identity.passport.expiry_date"]
        # The finding (masked in the archive), then the candidate that carried it.
        assert [(r.reason, r.path) for r in batch.rejections] == [
            ("secret", None),
            ("secret", "preferences.signature"),
        ]
        assert secret not in batch.inputs[0].content
        assert secret not in str([r.detail for r in batch.rejections])
