"""What one write appends, and how its rows are chained and signed, whatever the backend.

A `Batch` (inputs, facts, rejections, inferred schemas of one subject) becomes rows by
`prepare`: content hashes, the link to the previous row's hash, ids derived from the links,
keyed digests. The backend decides only where the numbers and the previous hash come from:
the embedded DuckDB log chains every fact after the previous one in the file (one global
chain, numbers counted by the single writer); the PostgreSQL log chains each subject's facts
after that subject's head (numbers from a sequence, the head row locked while appending).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.chain_rows import (  # noqa: F401 (also imported from here)
    CONTENT_COLUMNS,
    FACT_COLUMNS,
    FACT_V1,
    GENESIS,
    INPUT_COLUMNS,
    INPUT_V1,
    REJECTION_COLUMNS,
    SCHEMA_COLUMNS,
    VerifyReport,
    _cell,
    content_hash,
    fact_id,
    fact_problem,
    link_hash,
)
from uac.fact_log.errors import InputError
from uac.fact_log.tamper import row_mac
from uac.fact_log.values import canonical_json, json_string, sha256


def utc_naive(moment: dt.datetime | dt.date | None) -> dt.datetime | None:
    """A moment as naive UTC with microsecond precision, the form stored in the log."""
    if moment is None:
        return None
    if not isinstance(moment, dt.datetime):
        return dt.datetime(moment.year, moment.month, moment.day)
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment


@dataclass(slots=True)
class NewInput:
    """A raw input to archive: a message, a note, an imported file, a command."""

    kind: str
    content: str
    source: str
    name: str | None = None
    role: str | None = None
    session_id: str | None = None
    observed_at: dt.datetime | None = None


@dataclass(slots=True)
class NewFact:
    """A fact to append; the store assigns seq, id, recorded_at and the chain hashes."""

    op: str
    kind: str
    path: str
    value: Any = None
    record_key: str | None = None
    text: str | None = None
    source: str = "explicit_command"
    confidence: float = 1.0
    evidence: Any = None
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    input_index: int | None = None  # index into the batch's inputs
    input_id: str | None = None  # or an already archived input
    session_id: str | None = None


@dataclass(slots=True)
class NewRejection:
    """Something the ingestion gate refused, recorded with its reason."""

    reason: str
    path: str | None = None
    detail: Any = None
    input_index: int | None = None


@dataclass(slots=True)
class Batch:
    """Everything one write appends, atomically, for one subject."""

    address: Address
    recorded_at: dt.datetime
    actor: str
    inputs: list[NewInput] = field(default_factory=list)
    facts: list[NewFact] = field(default_factory=list)
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)  # fact_log/shapes.py
    rejections: list[NewRejection] = field(default_factory=list)
    input_ids: list[str] = field(default_factory=list)  # filled in by Store.append
    # what an agent may record itself (extraction/frames.py): never stored, only returned
    hints: list[dict[str, Any]] = field(default_factory=list)
    # No reaction wanted (a `react=False` writer): the write is recorded as covered in its own
    # transaction, not by a second commit after it (fact_log/backends/reactions.py).
    covered: bool = False
    # Filled in by Store.append: the commit itself recorded the write as covered (`covered`,
    # honoured by both logs' `append`; not by a streamed write), so the caller has nothing
    # left to mark.
    settled: bool = False


@dataclass(slots=True)
class Prepared:
    """A batch's rows, chained and signed, ready to insert; `head` is the chain after it."""

    batch: Batch
    run_id: str
    recorded: dt.datetime
    input_rows: list[tuple[Any, ...]]
    fact_rows: list[tuple[Any, ...]]
    rejection_rows: list[tuple[Any, ...]]
    head: tuple[int, str]
    input_seq: int
    schema_rows: list[tuple[Any, ...]] = field(default_factory=list)  # filled by the backend
    writes: tuple[int, int] = (0, 0)  # PostgreSQL: the subject's write counter before, after


def prepare(
    batch: Batch,
    ring: KeyRing,
    head: tuple[int, str],
    fact_seqs: Iterator[int],
    input_seqs: Iterator[int],
    run_seq: int,
) -> Prepared:
    """The rows of one batch chained after `head` (seq, hash); validation happens here.

    `fact_seqs` and `input_seqs` hand out the numbers of new rows (increasing); `run_seq`
    names the write (`run_<n>`, the seq of its first fact).
    """
    seq, prev = head
    input_seq = 0
    addr = batch.address
    for item in batch.inputs:
        _refuse_nul(item.content, item.name, item.session_id)
    for rej in batch.rejections:
        _refuse_nul(rej.path)
    recorded = utc_naive(batch.recorded_at)
    assert recorded is not None
    input_rows: list[tuple[Any, ...]] = []
    for item in batch.inputs:
        input_seq = next(input_seqs)
        chash = sha256(item.content)
        observed = utc_naive(item.observed_at) or recorded
        iid = "i_" + sha256(f"{input_seq}:{chash}:{recorded.isoformat()}")[:20]
        row = (
            input_seq,
            iid,
            addr.tenant,
            addr.scope,
            addr.subject,
            item.kind,
            item.name,
            item.role,
            item.content,
            chash,
            item.source,
            item.session_id,
            observed,
            recorded,
        )
        input_rows.append((*row, row_mac(ring, "inputs", row)))
    run_id = f"run_{run_seq}"
    fact_rows, head = _fact_rows(batch, ring, (seq, prev), fact_seqs, input_rows, run_id, recorded)
    seq, prev = head
    addr_cols = [addr.tenant, addr.scope, addr.subject]
    rejection_rows: list[tuple[Any, ...]] = []
    for n, rej in enumerate(batch.rejections):
        rid = "r_" + sha256(f"{run_id}:{n}:{rej.reason}")[:20]
        iid = None if rej.input_index is None else input_rows[rej.input_index][1]
        detail = None if rej.detail is None else canonical_json(rej.detail)
        values = (rid, *addr_cols, iid, rej.path, rej.reason, detail, recorded)
        rejection_rows.append((*values, row_mac(ring, "rejections", values)))
    return Prepared(
        batch, run_id, recorded, input_rows, fact_rows, rejection_rows, (seq, prev), input_seq
    )


def _fact_rows(
    batch: Batch,
    ring: KeyRing,
    head: tuple[int, str],
    fact_seqs: Iterator[int],
    input_rows: list[tuple[Any, ...]],
    run_id: str,
    recorded: dt.datetime,
) -> tuple[list[tuple[Any, ...]], tuple[int, str]]:
    """A batch's fact rows chained after `head`, in one tight pass; and the head after them.

    The chain is sequential (each link hashes the previous one), so the rows are built one
    after another, but everything that repeats is encoded once: the subject, the write's
    columns, and the op/kind/path/source/key/input/session cells, which a batch (an import)
    repeats for every row. The bytes hashed are exactly `content_hash` of the row.
    """
    seq, prev = head
    addr = batch.address
    sign = ring.sign
    first = ",".join(map(_cell, (addr.tenant, addr.scope, addr.subject)))
    last = f"{_cell(recorded)},"
    tail = f"{_cell(run_id)},{_cell(batch.actor)}]"
    cells: dict[str, str] = {}  # repeated text -> its JSON cell

    def cell(value: Any) -> str:
        if type(value) is not str:
            return _cell(value)
        found = cells.get(value)
        if found is None:
            found = cells[value] = json_string(value)
        return found

    rows: list[tuple[Any, ...]] = []
    for new in batch.facts:
        seq = next(fact_seqs)
        input_id = new.input_id
        if new.input_index is not None:
            input_id = input_rows[new.input_index][1]
        value = None if new.value is None else canonical_json(new.value)
        evidence = None if new.evidence is None else canonical_json(new.evidence)
        confidence = float(new.confidence)
        valid_from, valid_to = utc_naive(new.valid_from), utc_naive(new.valid_to)
        body = (
            f"[{first},{cell(new.op)},{cell(new.kind)},{cell(new.path)},"
            f"{_cell(new.record_key)},{'null' if value is None else json_string(value)},"
            f"{_cell(new.text)},{cell(new.source)},{json_string(repr(confidence))},"
            f"{'null' if evidence is None else json_string(evidence)},"
            f"{_cell(valid_from)},{_cell(valid_to)},{last}"
            f"{cell(input_id)},{cell(new.session_id)},{tail}"
        )
        if "\\u0000" in body:  # every U+0000 anywhere in the row shows here, escaped
            _refuse_nul(new.value, new.text, new.record_key, new.path, new.session_id, new.evidence)
        chash = sha256(body)
        link = link_hash(seq, prev, chash)
        rows.append(
            (
                seq,
                fact_id(link),
                addr.tenant,
                addr.scope,
                addr.subject,
                new.op,
                new.kind,
                new.path,
                new.record_key,
                value,
                new.text,
                new.source,
                confidence,
                evidence,
                valid_from,
                valid_to,
                recorded,
                input_id,
                new.session_id,
                run_id,
                batch.actor,
                chash,
                prev,
                link,
                sign(f"fact:{seq}:{link}"),
            )
        )
        prev = link
    return rows, (seq, prev)


def _refuse_nul(*parts: Any) -> None:
    """Refuse a write whose text holds U+0000, on every backend alike.

    PostgreSQL text cannot store it and nothing a person writes needs it; messages, notes
    and imported files already refuse it, so structured values and rules do too. Raised
    before a row is written: the whole write is refused.
    """
    stack = list(parts)
    while stack:
        part = stack.pop()
        if isinstance(part, str):
            if "\x00" in part:
                raise InputError(
                    "the text contains a NUL character (U+0000), which uac does not store; "
                    "remove it and retry (nothing was written)"
                )
        elif isinstance(part, Mapping):
            stack.extend(part.keys())
            stack.extend(part.values())
        elif isinstance(part, list | tuple):
            stack.extend(part)


def slices(batch: Batch, size: int, input_ids: list[str]) -> Iterator[Batch]:
    """A batch as consecutive batches of at most `size` facts that chain to the same rows.

    The first holds the inputs and the rejections; the later ones name the inputs by the ids
    the first one's rows got, which the caller puts in `input_ids` before asking for the
    second. Chained one after another with the batch's run number, they give exactly the
    rows the whole batch gives (the same cells are hashed).
    """
    addr, at, actor = batch.address, batch.recorded_at, batch.actor
    yield Batch(addr, at, actor, batch.inputs, batch.facts[:size], {}, batch.rejections)
    for start in range(size, len(batch.facts), size):
        part = batch.facts[start : start + size]
        yield Batch(addr, at, actor, facts=[_by_id(new, input_ids) for new in part])


def _by_id(new: NewFact, input_ids: list[str]) -> NewFact:
    if new.input_index is None:
        return new
    return replace(new, input_index=None, input_id=input_ids[new.input_index])


def schema_row(
    ring: KeyRing,
    addr: Address,
    path: str,
    fields: dict[str, Any],
    current: tuple[int, dict[str, Any]] | None,
    input_id: str | None,
    at: dt.datetime,
) -> tuple[Any, ...] | None:
    """The `schemas` row recording an inferred collection schema, or None if unchanged."""
    if current is not None and current[1] == fields:
        return None
    version = 1 if current is None else current[0] + 1
    values = (
        addr.tenant,
        addr.scope,
        addr.subject,
        path,
        version,
        canonical_json(fields),
        input_id,
        at,
    )
    return (*values, row_mac(ring, "schemas", values))
