"""Compile one subject: fold → render → ruff → validate in isolation → publish.

Publishing is atomic: a checkpoint is built in a temporary directory next to the versions,
validated there, renamed to `versions/vNNNNNN` and only then made current by replacing the
`current` pointer file. A failed or interrupted compile leaves the previous checkpoint
current; leftover temporary directories are removed by the next compile of that subject.

Incremental: a collection whose records (and record class) are unchanged since the
previous checkpoint is not rendered, formatted or re-validated again — its module (and
bytecode cache) is hard-linked from the previous version; a module whose rendered source is
unchanged is not formatted again (its formatted file and bytecode are linked). Either only if
the previous file still has its published digest. The fold takes an unchanged collection
whole from its memo (compiler/fold.py), so a one-fact change costs little per record.
Validation imports the new version in a child forked from a warm process that has
never imported generated code (compiler/validator.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uac.compiler import (
    cache,
    checkpoint_seal,  # noqa: F401 (declares the table's seal)
)
from uac.compiler.canonical import CONSTRAINTS, constraints_digest, rows_digest
from uac.compiler.fold import FoldResult, fold, select_facts
from uac.compiler.gc_pause import cyclic_gc_paused
from uac.compiler.inherit import Inherited, inherited
from uac.compiler.loader import (
    FILES,
    current_version,
    file_digests,
    placement_file,
    sign,
    signature_ok,
    subject_dir,
    version_name,
)
from uac.compiler.locks import subjects_locked
from uac.compiler.model import build_model, model_parts
from uac.compiler.render import applicable_checks, records_format, render
from uac.compiler.shared_checkpoints import place, upload
from uac.compiler.validator import validate
from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import LogIntegrityError, NotFound, UacError
from uac.fact_log.schema import Owner, register
from uac.fact_log.store import Fact, Store, utc_now

# One row per compile attempt (published or failed) of a subject: the store's change
# detection compares a subject's facts with its last published watermark. Migrated by
# fact_log/schema.py; step 1 was fact_log's step 2 before each layer owned its tables.
CHECKPOINTS = register(
    Owner(
        "compiler",
        1,
        (
            (
                "CREATE TABLE IF NOT EXISTS checkpoints (id BIGINT NOT NULL,"
                " tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL, subject VARCHAR NOT NULL,"
                " version INTEGER, status VARCHAR NOT NULL, watermark BIGINT NOT NULL,"
                " head_id VARCHAR, as_of TIMESTAMP, known_at TIMESTAMP, facts INTEGER NOT NULL,"
                " error VARCHAR, timings VARCHAR, started_at TIMESTAMP NOT NULL,"
                " finished_at TIMESTAMP NOT NULL)",
            ),
            # Tamper evidence: each row's keyed digest (fact_log/tamper.py).
            ("ALTER TABLE checkpoints ADD COLUMN IF NOT EXISTS mac VARCHAR",),
        ),
    )
)

DEFAULT_KEEP = 5
RUFF_FORMAT = [  # --no-cache: a compile must never leave .ruff_cache in the caller's directory
    "format",
    "--isolated",
    "--quiet",
    "--no-cache",
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

BATCH = 200  # subjects per ruff run and per validator request
_LOG = logging.getLogger("uac.compiler")


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


@dataclass(slots=True)
class _Pending:
    """A rendered checkpoint in its temporary directory, waiting for ruff and validation."""

    addr: Address
    tmp: Path
    written: list[Path]
    expected: dict[str, str]  # part -> digest the generated objects must reproduce
    meta: dict[str, Any]
    row: dict[str, Any]
    result: CompileResult
    error: str | None = None


def _ruff(args: list[str], files: list[Path]) -> str | None:
    """Run ruff on files; the error text if it failed."""
    from ruff.__main__ import find_ruff_bin

    if not files:
        return None
    done = subprocess.run(
        [find_ruff_bin(), *args, *map(str, files)], capture_output=True, text=True
    )
    if done.returncode == 0:
        return None
    detail = (done.stdout + done.stderr).strip().splitlines()
    return f"ruff {args[0]} failed on generated code: {' | '.join(detail[:5])}"


def _ruff_batch(batch: list[_Pending]) -> None:
    # One ruff process per step for the whole batch; if it fails, find the culprits alone.
    for args in (RUFF_FORMAT, RUFF_CHECK):
        live = [p for p in batch if p.error is None]
        if _ruff(args, [f for p in live for f in p.written]) is None:
            continue
        for pending in live:
            pending.error = _ruff(args, pending.written)


def _validate_batch(batch: list[_Pending]) -> None:
    live = [p for p in batch if p.error is None]
    if not live:
        return
    # Collections carried unchanged from the validated previous version are not imported.
    answers = validate(
        [(p.tmp, sorted(p.expected), [f"records_{a}" for a in p.result.reused]) for p in live]
    )
    for pending, answer in zip(live, answers, strict=True):
        if "error" in answer:
            pending.error = f"generated code failed to import in isolation: {answer['error']}"
            continue
        wrong = sorted(k for k in pending.expected if answer["parts"].get(k) != pending.expected[k])
        if wrong:
            pending.error = f"round trip failed: generated {', '.join(wrong)} differ from the fold"


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
    return compile_many(store, catalog, [addr], as_of=as_of, known_at=known_at, keep=keep)[0]


def compile_many(
    store: Store,
    catalog: Catalog,
    addresses: list[Address],
    *,
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    keep: int = DEFAULT_KEEP,
    progress: Callable[[int, int, CompileResult], None] | None = None,
) -> list[CompileResult]:
    """Compile subjects in batches; one subject's failure does not stop the others.

    A subject with no facts (in the selected time) raises NotFound when it is the only one
    asked for, and is reported as failed otherwise.
    """
    results: list[CompileResult] = []
    for first in range(0, len(addresses), BATCH):
        chunk = addresses[first : first + BATCH]
        done = len(results)
        with subjects_locked(store.home, chunk):
            results.extend(
                _compile_chunk(store, catalog, chunk, len(addresses), as_of, known_at, keep)
            )
        if progress is not None:
            for n, res in enumerate(results[done:], done + 1):
                progress(n, len(addresses), res)
    return results


def _compile_chunk(
    store: Store,
    catalog: Catalog,
    chunk: list[Address],
    asked: int,
    as_of: dt.datetime | None,
    known_at: dt.datetime | None,
    keep: int,
) -> list[CompileResult]:
    """Prepare, format, validate and publish a chunk of subjects (their locks are held)."""
    batch: list[_Pending] = []
    for addr in chunk:
        try:
            with cyclic_gc_paused():
                batch.append(_prepare(store, catalog, addr, as_of, known_at))
        except NotFound as exc:
            if asked == 1:
                raise
            batch.append(_failed_early(addr, str(exc)))
        except LogIntegrityError as exc:
            # Never publish over a segment that does not verify: the last good checkpoint
            # keeps serving, the failed attempt is recorded and operators are told.
            _LOG.error("compile of %s refused: %s", addr, exc)
            batch.append(_refused(addr, str(exc), as_of, known_at))
    t = time.perf_counter()
    _ruff_batch(batch)
    _share(batch, "ruff", time.perf_counter() - t)
    t = time.perf_counter()
    _validate_batch(batch)
    _share(batch, "validate", time.perf_counter() - t)
    return [_finish(store, pending, keep) for pending in batch]


def _share(batch: list[_Pending], phase: str, seconds: float) -> None:
    # Batched phases are timed once; each subject is charged an equal share.
    for pending in batch:
        pending.result.timings[phase] = seconds / len(batch)


def _failed_early(addr: Address, error: str) -> _Pending:
    result = CompileResult(addr, "failed", None, None, 0, 0, False, error=error)
    return _Pending(addr, Path(), [], {}, {}, {}, result, error)


def subject_facts(
    store: Store,
    catalog: Catalog,
    addr: Address,
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    proposed: list[Fact] | None = None,
) -> tuple[list[Fact], Inherited]:
    """The facts a compile of the subject folds, in log order, and what it inherits.

    `proposed` (a preview, compiler/overlay.py): facts not in the log, read as if the
    subject had just written them: after everything else, in the order given, their seqs
    renumbered past the last one read.
    """
    own = select_facts(cache.read_facts(store, addr), as_of, known_at)
    shared = inherited(store, catalog, addr, [*own, *(proposed or ())], as_of, known_at)
    facts = own
    if shared.facts:  # one log order: a retract in a group's log finds its target there
        facts = sorted([*own, *shared.facts], key=lambda f: f.seq)
    if proposed:
        top = facts[-1].seq if facts else 0
        facts = facts + [replace(f, seq=top + n) for n, f in enumerate(proposed, 1)]
    return facts, shared


def _refused(
    addr: Address, error: str, as_of: dt.datetime | None, known_at: dt.datetime | None
) -> _Pending:
    """A compile the log's integrity check refused: failed, but recorded with its reason."""
    pending = _failed_early(addr, error)
    pending.row = {
        "watermark": 0,
        "head_id": None,
        "as_of": as_of,
        "known_at": known_at,
        "facts": 0,
        "started_at": utc_now(),
    }
    return pending


def _prepare(
    store: Store,
    catalog: Catalog,
    addr: Address,
    as_of: dt.datetime | None,
    known_at: dt.datetime | None,
) -> _Pending:
    """Read, fold and render one subject into a fresh temporary version directory."""
    started = utc_now()
    timings: dict[str, float] = {}
    t = time.perf_counter()
    facts, shared = subject_facts(store, catalog, addr, as_of, known_at)
    if not facts:
        # Inputs with no typed fact yet (a greeting, an unparsed note) compile to the empty
        # typed state: queries answer and the manifest says nothing is known yet.
        if as_of or known_at:
            raise NotFound(f"{addr} has no facts at that time to compile; pick a later time")
        if not store.inputs(addr) and not shared.ever_member:  # a member who left: empty
            raise NotFound(
                f"{addr} has nothing to compile yet; write to it first, e.g. "
                f'uac add {addr} "I moved to Lisbon"'
            )
    timings["read"] = time.perf_counter() - t
    t = time.perf_counter()
    model = build_model(catalog, store.inferred_schemas(addr, known_at))
    folded = fold(catalog, model, facts, cache.fold_memo(store, addr), shared.scopes)
    if shared.mark > folded.watermark:  # a group's or the tenant's log moved on: it was read
        folded.watermark, folded.head_id = shared.mark, shared.mark_id
    if as_of is None and known_at is None:  # a time-travel fold is not the next one's base
        cache.keep_fold_memo(store, addr, folded.memo)
    _unused_inputs(store, addr, facts, known_at, folded)
    parts = model_parts(model)
    parts[CONSTRAINTS] = constraints_digest(
        applicable_checks(folded), [r.check for r in model.rules]
    )
    timings["fold"] = time.perf_counter() - t
    t = time.perf_counter()
    versions = subject_dir(store.home, addr) / "versions"
    versions.mkdir(parents=True, exist_ok=True)
    for leftover in versions.glob(".tmp-*"):  # an interrupted compile: discard it
        shutil.rmtree(leftover, ignore_errors=True)
    previous = _previous(versions.parent)
    reuse_keys = {
        c.attr: rows_digest(
            (c.class_name, tuple(f.name for f in c.fields), parts[c.attr], records_format())
        )
        for c in model.collections
        if c.records
    }
    reusable = {
        attr
        for attr, key in reuse_keys.items()
        if previous
        and previous[1].get("reuse", {}).get(attr) == key
        and _intact(previous, f"records_{attr}.py")
        and _intact(previous, f"records_{attr}.json")
    }
    tmp = versions / f".tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    written = []
    before = previous[1].get("preformat", {}) if previous else {}
    carried = [f"records_{attr}.py" for attr in reusable]
    preformat = {name: before[name] for name in carried if name in before}
    for name, text in render(folded, str(addr), addr.tenant, skip=reusable, digests=parts).items():
        if name.endswith(".py"):
            preformat[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if previous and before.get(name) == preformat[name] and _intact(previous, name):
                # Same source as last time: ruff is deterministic, take its earlier output
                # (and its bytecode: the link keeps the mtime the .pyc was stamped with).
                _link_or_copy(previous[0] / name, tmp / name)
                _link_bytecode(previous[0], tmp, name[:-3])
                continue
            written.append(tmp / name)
        (tmp / name).write_text(text, encoding="utf-8")
    _reuse(previous[0] if previous else None, tmp, reusable)
    timings["render"] = time.perf_counter() - t
    travel = as_of is not None or known_at is not None
    meta = {
        "subject": str(addr),
        "tenant": addr.tenant,
        "watermark": folded.watermark,
        "head_id": folded.head_id,
        "as_of": as_of.isoformat() if as_of else None,
        "known_at": known_at.isoformat() if known_at else None,
        "parts": parts,
        "reuse": reuse_keys,
        "preformat": preformat,  # file -> digest of its text before ruff formatted it
    }
    row = {
        "watermark": folded.watermark,
        "head_id": folded.head_id,
        "as_of": as_of,
        "known_at": known_at,
        "facts": len(facts),
        "started_at": started,
    }
    result = CompileResult(
        addr,
        "failed",
        None,
        None,
        len(facts),
        folded.watermark,
        not travel,
        timings,
        sorted(reusable),
        None,
        len(folded.diagnostics),
    )
    expected = {k: v for k, v in parts.items() if k not in reusable}
    return _Pending(addr, tmp, written, expected, meta, row, result)


def _finish(store: Store, pending: _Pending, keep: int) -> CompileResult:
    """Publish a validated checkpoint atomically, or record why it failed."""
    result = pending.result
    if pending.error is None:
        t = time.perf_counter()
        try:
            pending.meta["files"] = file_digests(pending.tmp)
            (pending.tmp / FILES).write_text(
                json.dumps(pending.meta, indent=1, sort_keys=True) + "\n"
            )
            sign(pending.tmp, store.signer())
            result.version, final = place(store, pending.addr, pending.tmp, result.current)
            result.status, result.directory = "published", final
        except OSError as exc:
            pending.error = f"cannot publish: {exc}"
        result.timings["publish"] = time.perf_counter() - t
    if pending.error is not None:
        if pending.tmp != Path():
            shutil.rmtree(pending.tmp, ignore_errors=True)
        result.status, result.version, result.directory = "failed", None, None
        result.current, result.reused, result.error = False, [], pending.error
        if not pending.row:  # nothing was read: nothing to record
            return result
    pending.row.update(
        version=result.version,
        status=result.status,
        error=result.error,
        timings=json.dumps(result.timings),
        finished_at=utc_now(),
    )
    store.record_checkpoint(pending.addr, pending.row)
    if result.status == "published" and result.current:
        upload(store, pending.addr, result.directory, pending.row)  # type: ignore[arg-type]
    if result.status == "published":
        _prune(result.directory.parent, keep, current_version(store.home, pending.addr))  # type: ignore[union-attr]
    return result


def _previous(base: Path) -> tuple[Path, dict[str, Any]] | None:
    pointer = base / "current"
    try:
        directory = base / "versions" / pointer.read_text().strip()
        stamp = (directory / FILES).read_bytes()
        # Reused files are signed again with the new version: only reuse signed ones.
        if not signature_ok(directory, stamp):
            return None
        return directory, json.loads(stamp)
    except (OSError, ValueError):
        return None


def _intact(previous: tuple[Path, dict[str, Any]], name: str) -> bool:
    """True if the previous version's file still has the digest it was published with."""
    directory, meta = previous
    try:
        digest = hashlib.sha256((directory / name).read_bytes()).hexdigest()
    except OSError:
        return False
    return digest == meta.get("files", {}).get(name)


def _reuse(previous: Path | None, tmp: Path, attrs: set[str]) -> None:
    if previous is None:
        return
    for attr in sorted(attrs):
        for suffix in (".py", ".json"):
            _link_or_copy(previous / f"records_{attr}{suffix}", tmp / f"records_{attr}{suffix}")
        _link_bytecode(previous, tmp, f"records_{attr}")


def _link_bytecode(previous: Path, tmp: Path, module: str) -> None:
    """Carry a module's compiled bytecode along with its (linked, so same mtime) source."""
    for pyc in (previous / "__pycache__").glob(f"{module}.*.pyc"):
        cache = tmp / "__pycache__"
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


def prune_versions(home: Path, addr: Address, keep: int = DEFAULT_KEEP) -> int:
    """Delete a subject's checkpoint versions beyond the newest `keep` (never the current one).

    Holds the subject's lock, like a compile; returns how many versions were deleted.
    """
    if keep < 1:
        raise UacError(f"keep must be at least 1, got {keep}")
    versions = subject_dir(home, addr) / "versions"
    if not versions.is_dir():
        return 0
    with subjects_locked(home, [addr]):
        return _prune(versions, keep, current_version(home, addr))


def _prune(versions: Path, keep: int, current: int | None) -> int:
    names = sorted(p.name for p in versions.iterdir() if p.name.startswith("v"))
    protected = {version_name(current)} if current is not None else set()
    removed = 0
    for name in names[: max(0, len(names) - keep)]:
        if name not in protected:
            shutil.rmtree(versions / name, ignore_errors=True)
            if name[1:].isdigit():
                placement_file(versions.parent, int(name[1:])).unlink(missing_ok=True)
            removed += 1
    return removed
