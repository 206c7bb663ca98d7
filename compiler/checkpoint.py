"""Compile one subject: fold → render → ruff → validate in a fresh interpreter → publish.

Publishing is atomic: a checkpoint is built in a temporary directory next to the versions,
validated there, renamed to `versions/vNNNNNN` and only then made current by replacing the
`current` pointer file. A failed or interrupted compile leaves the previous checkpoint
current; leftover temporary directories are removed by the next compile of that subject.

Incremental: a collection whose records (and record class) are unchanged since the
previous checkpoint is not rendered, formatted or re-validated again — its module (and
bytecode cache) is hard-linked from the previous version.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.canonical import rows_digest
from compiler.fold import FoldResult, fold, select_facts
from compiler.loader import FILES, current_version, file_digests, subject_dir, version_name
from compiler.model import build_model, model_parts
from compiler.render import render
from fact_log.addressing import Address
from fact_log.catalog import Catalog
from fact_log.errors import NotFound, UacError
from fact_log.store import Store, utc_now

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_KEEP = 5
RUFF_FORMAT = [
    "format",
    "--isolated",
    "--quiet",
    "--line-length",
    "100",
    "--target-version",
    "py311",
]
RUFF_CHECK = [
    "check",
    "--isolated",
    "--quiet",
    "--no-cache",
    "--output-format",
    "concise",
    "--target-version",
    "py311",
    "--select",
    "E,F,W,B",
    "--ignore",
    "E501",
]

# Run in a fresh interpreter: import the checkpoint by path and digest the requested parts.
_VALIDATOR = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from compiler.canonical import object_parts
from compiler.loader import import_package
package = import_package(Path(sys.argv[2]), verify=False)
print(json.dumps(object_parts(package.state.user, json.loads(sys.argv[3]))))
"""


class CompileError(UacError):
    """Generated code failed formatting, linting, import or the round-trip check."""


@dataclass(slots=True)
class CompileResult:
    """Outcome of compiling one subject."""

    address: Address
    status: str  # published | failed
    version: int | None
    directory: Path | None
    facts: int
    watermark: int
    current: bool
    timings: dict[str, float] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)
    error: str | None = None
    diagnostics: int = 0


def _ruff(args: list[str], files: list[Path]) -> None:
    from ruff.__main__ import find_ruff_bin

    if not files:
        return
    done = subprocess.run(
        [find_ruff_bin(), *args, *map(str, files)], capture_output=True, text=True
    )
    if done.returncode != 0:
        detail = (done.stdout + done.stderr).strip().splitlines()
        raise CompileError(f"ruff {args[0]} failed on generated code: {' | '.join(detail[:5])}")


def _validate(directory: Path, expected: dict[str, str]) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            _VALIDATOR,
            str(ROOT),
            str(directory),
            json.dumps(sorted(expected)),
        ],
        capture_output=True,
        text=True,
        env={"PYTHONHASHSEED": "0", "TZ": "UTC", "PATH": os.environ.get("PATH", "")},
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CompileError(f"generated code failed to import in a fresh interpreter: {last}")
    found = json.loads(done.stdout)
    wrong = sorted(k for k in expected if found.get(k) != expected[k])
    if wrong:
        raise CompileError(f"round trip failed: generated {', '.join(wrong)} differ from the fold")


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def compile_subject(
    store: Store,
    catalog: Catalog,
    addr: Address,
    *,
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    keep: int = DEFAULT_KEEP,
) -> CompileResult:
    """Compile and publish a checkpoint for one subject (time travel does not move `current`)."""
    started = utc_now()
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    facts = select_facts(store.facts(addr), as_of, known_at)
    if not facts:
        raise NotFound(
            f"{addr} has no facts{' at that time' if as_of or known_at else ''} to compile"
        )
    timings["read"] = time.perf_counter() - t0
    t = time.perf_counter()
    model = build_model(catalog, store.inferred_schemas(addr, known_at))
    result = fold(catalog, model, facts)
    _unused_inputs(store, addr, facts, known_at, result)
    parts = model_parts(model)
    timings["fold"] = time.perf_counter() - t
    travel = as_of is not None or known_at is not None
    base = subject_dir(store.home, addr)
    versions = base / "versions"
    versions.mkdir(parents=True, exist_ok=True)
    for leftover in versions.glob(".tmp-*"):  # an interrupted compile: discard it
        shutil.rmtree(leftover, ignore_errors=True)
    previous = _previous(base)
    reuse_keys = {
        c.attr: rows_digest((c.class_name, tuple(f.name for f in c.fields), parts[c.attr]))
        for c in model.collections
        if c.records
    }
    reusable = {
        attr
        for attr, key in reuse_keys.items()
        if previous
        and previous[1].get("reuse", {}).get(attr) == key
        and (previous[0] / f"records_{attr}.py").is_file()
    }
    version = store.next_version(addr)
    tmp = versions / f".tmp-{uuid.uuid4().hex}"
    row: dict[str, Any] = {
        "watermark": result.watermark,
        "head_id": result.head_id,
        "as_of": as_of,
        "known_at": known_at,
        "facts": len(facts),
        "started_at": started,
    }
    try:
        t = time.perf_counter()
        files = render(result, str(addr), addr.tenant, skip=reusable)
        tmp.mkdir()
        written = []
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
            if name.endswith(".py"):
                written.append(tmp / name)
        _reuse(previous[0] if previous else None, tmp, reusable)
        timings["render"] = time.perf_counter() - t
        t = time.perf_counter()
        _ruff(RUFF_FORMAT, written)
        _ruff(RUFF_CHECK, written)
        timings["ruff"] = time.perf_counter() - t
        t = time.perf_counter()
        _validate(tmp, {k: v for k, v in parts.items() if k not in reusable})
        timings["validate"] = time.perf_counter() - t
        t = time.perf_counter()
        meta = {
            "subject": str(addr),
            "tenant": addr.tenant,
            "watermark": result.watermark,
            "head_id": result.head_id,
            "as_of": as_of.isoformat() if as_of else None,
            "known_at": known_at.isoformat() if known_at else None,
            "files": file_digests(tmp),
            "parts": parts,
            "reuse": reuse_keys,
        }
        (tmp / FILES).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
        final = versions / version_name(version)
        os.replace(tmp, final)
        if not travel:
            pointer = base / f".current-{uuid.uuid4().hex}"
            pointer.write_text(version_name(version) + "\n")
            os.replace(pointer, base / "current")
        timings["publish"] = time.perf_counter() - t
    except (UacError, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        row.update(
            status="failed",
            error=str(exc),
            timings=json.dumps(timings),
            finished_at=utc_now(),
        )
        store.record_checkpoint(addr, row)
        return CompileResult(
            addr,
            "failed",
            None,
            None,
            len(facts),
            result.watermark,
            False,
            timings,
            [],
            str(exc),
            len(result.diagnostics),
        )
    row.update(
        version=version,
        status="published",
        timings=json.dumps(timings),
        finished_at=utc_now(),
    )
    store.record_checkpoint(addr, row)
    _prune(versions, keep, current_version(store.home, addr))
    return CompileResult(
        addr,
        "published",
        version,
        final,
        len(facts),
        result.watermark,
        not travel,
        timings,
        sorted(reusable),
        None,
        len(result.diagnostics),
    )


def _previous(base: Path) -> tuple[Path, dict[str, Any]] | None:
    pointer = base / "current"
    try:
        directory = base / "versions" / pointer.read_text().strip()
        return directory, json.loads((directory / FILES).read_text())
    except (OSError, ValueError):
        return None


def _reuse(previous: Path | None, tmp: Path, attrs: set[str]) -> None:
    if previous is None:
        return
    cache = tmp / "__pycache__"
    for attr in sorted(attrs):
        for suffix in (".py", ".json"):
            _link_or_copy(previous / f"records_{attr}{suffix}", tmp / f"records_{attr}{suffix}")
        for pyc in (previous / "__pycache__").glob(f"records_{attr}.*.pyc"):
            cache.mkdir(exist_ok=True)
            _link_or_copy(pyc, cache / pyc.name)


def _unused_inputs(
    store: Store, addr: Address, facts: list[Any], known_at: dt.datetime | None, result: FoldResult
) -> None:
    used = {f.input_id for f in facts}
    for item in store.inputs(addr):
        if item.id not in used and (known_at is None or item.recorded_at <= known_at):
            result.diagnostics.append(
                {"kind": "no_typed_fact", "input": item.id, "input_kind": item.kind}
            )


def _prune(versions: Path, keep: int, current: int | None) -> None:
    names = sorted(p.name for p in versions.iterdir() if p.name.startswith("v"))
    protected = {version_name(current)} if current is not None else set()
    for name in names[: max(0, len(names) - keep)]:
        if name not in protected:
            shutil.rmtree(versions / name, ignore_errors=True)


def compile_many(
    store: Store,
    catalog: Catalog,
    addresses: list[Address],
    *,
    progress: Callable[[int, int, CompileResult], None] | None = None,
    **options: Any,
) -> list[CompileResult]:
    """Compile several subjects; one subject's failure does not stop the others."""
    results = []
    for n, addr in enumerate(addresses, 1):
        res = compile_subject(store, catalog, addr, **options)
        results.append(res)
        if progress is not None:
            progress(n, len(addresses), res)
    return results
