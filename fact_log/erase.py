"""Legal erase, the log side: blank facts' and inputs' content in place, keep every hash.

The log is append-only except here. An erase rewrites rows of `facts`, `inputs` and
`rejections` of one subject so their content is gone while the chain still verifies:

* a fact keeps seq, id, tenant/scope/subject, kind, path, source, confidence, recorded_at,
  input/session/run ids, actor, `content_hash`, `prev_hash`, `hash` and `mac`; `value`,
  `text`, `evidence`, `record_key` and the validity times become NULL and `op` becomes
  `erased` (so every fold, index and reader that switches on `op` skips it). Its link and
  keyed digest are over `content_hash`, which is kept, so they still verify; only the
  content-hash check cannot, and `erased_rows` says why: one sealed row per erased fact
  holding the digest of the blanked row (`residual`). `Store.verify` accepts a fact whose
  content does not match its content hash only when such a row verifies under the key and
  the blanked row matches its residual — an erased row edited later is still caught.
* an input keeps its `content_hash`; its `content` becomes '' and its `name` NULL, and the
  row is resealed (its `mac` covers the blanked row). A rejection of an erased input (or any
  of the subject's, with --all) loses `detail` and is resealed likewise.
* `erasures` holds the report: what (fact ids, input ids, counts per table), where, when,
  by whom and why — never erased content. Both tables are sealed (fact_log/tamper.py). The
  row is written as `pending` in the blanking transaction and completed once derived data
  is purged, so a process killed in between leaves a record the next writable open finishes
  (`pending_erasures`; runtime/api/erase.py resumes it) instead of an erase without report.

DuckDB keeps overwritten values in free blocks of the file until they are reused, so an
erase ends by rewriting the file (`compact_file`): the database is copied into a fresh file
(COPY FROM DATABASE) and swapped in, and no byte of a blanked value survives on disk.
Derived data (search rows, checkpoints, alerts, outbox) is purged by runtime/api/erase.py.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uac.fact_log import (
    log_seals,  # noqa: F401 (declares the seals of its tables)
    queries,
)
from uac.fact_log.addressing import Address
from uac.fact_log.backends import write_keys
from uac.fact_log.backends.pg_erase import BLANKED
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.schema import Owner, register
from uac.fact_log.store import (
    CONTENT_COLUMNS,
    DB_FILE,
    Store,
    content_hash,
)
from uac.fact_log.tamper import ERASED_ROW_COLUMNS, reseal, row_mac

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

ERASED_OP = "erased"
PENDING = "pending"  # an erasure report's status until its derived data is purged

ERASE = register(
    Owner(
        "erase",
        0,
        (
            (
                "CREATE TABLE IF NOT EXISTS erasures (id VARCHAR NOT NULL,"
                " tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL, subject VARCHAR NOT NULL,"
                " scope_of_erase VARCHAR NOT NULL, reason VARCHAR NOT NULL,"
                " actor VARCHAR NOT NULL, erased_at TIMESTAMP NOT NULL,"
                " report VARCHAR NOT NULL, mac VARCHAR)",
                "CREATE TABLE IF NOT EXISTS erased_rows (erasure VARCHAR NOT NULL,"
                " tbl VARCHAR NOT NULL, row_id VARCHAR NOT NULL, seq BIGINT NOT NULL,"
                " content_hash VARCHAR NOT NULL, residual VARCHAR NOT NULL, mac VARCHAR)",
            ),
        ),
    )
)

_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
# A list of ids or seqs is bound as one comma-joined string: binding a Python list costs
# per element (DuckDB probes optional modules for each value: seconds for 10k ids).
IDS = "(SELECT unnest(list_filter(string_split(?, ','), x -> x <> '')))"
SEQS = "(SELECT unnest(list_filter(string_split(?, ','), x -> x <> ''))::BIGINT)"


def listed(values: Sequence[Any]) -> str:
    """Ids or numbers (never holding a comma) as the one parameter IDS and SEQS take."""
    return ",".join(map(str, values))


@dataclass(slots=True)
class LogErasure:
    """What the log side of one erase blanked (ids only, never content)."""

    id: str
    address: Address
    what: str  # "all" or "facts"
    reason: str
    actor: str
    erased_at: dt.datetime
    facts: list[dict[str, Any]] = field(default_factory=list)  # id, seq, kind, path
    inputs: list[str] = field(default_factory=list)
    rejections: int = 0


def select_targets(
    store: Store, addr: Address, fact_ids: Sequence[str] | None
) -> tuple[list[int], list[str]]:
    """(fact seqs, input ids) an erase of these facts (None: all of the subject's) blanks.

    Named facts bring their inputs and every fact that targets them (a retract or feedback
    carries the target's record key); an unknown id raises NotFound before anything is
    written. With None, every fact and input of the subject.
    """
    con = store.con
    key = [addr.tenant, addr.scope, addr.subject]
    if fact_ids is None:
        seqs = [
            r[0] for r in con.execute(f"SELECT seq FROM facts WHERE {_SUBJECT}", key).fetchall()
        ]
        inputs = [
            r[0] for r in con.execute(f"SELECT id FROM inputs WHERE {_SUBJECT}", key).fetchall()
        ]
        return sorted(seqs), sorted(inputs)
    if not fact_ids:
        raise InputError("name at least one fact to erase (--fact ID), or --all")
    wanted = list(dict.fromkeys(fact_ids))
    rows = con.execute(
        f"SELECT id, seq, input_id FROM facts WHERE {_SUBJECT} AND id IN {IDS}",
        [*key, listed(wanted)],
    ).fetchall()
    found = {r[0] for r in rows}
    missing = [f for f in wanted if f not in found]
    if missing:
        raise NotFound(
            f"subject {addr} has no fact {missing[0]!r}; nothing was erased "
            f"(see 'uac facts {addr}' for its fact ids)"
        )
    referring = con.execute(
        f"SELECT seq, input_id FROM facts WHERE {_SUBJECT} AND op IN ('retract', 'feedback')"
        f" AND json_extract_string(value, '$.target') IN {IDS}",
        [*key, listed(wanted)],
    ).fetchall()
    seqs = sorted({r[1] for r in rows} | {r[0] for r in referring})
    inputs = sorted({r[2] for r in rows if r[2]} | {r[1] for r in referring if r[1]})
    return seqs, inputs


def _residual(row: Sequence[Any]) -> str:
    """Digest of a blanked fact's content columns (what verify then expects to find)."""
    return content_hash(row)


def erase_log(
    store: Store,
    addr: Address,
    fact_ids: Sequence[str] | None,
    *,
    reason: str,
    actor: str,
    now: dt.datetime,
    slot: write_keys.Slot | None = None,
) -> LogErasure:
    """Blank the named facts (None: all the subject's) and their inputs, hashes kept.

    On a shared log the rows are blanked in PostgreSQL first (fact_log/backends/pg_erase.py,
    one transaction), then in this node's copy (one transaction). `slot`: a keyed request's
    step, recorded with the erasure's id in the transaction that blanks the log.
    """
    if not reason or not reason.strip():
        raise InputError("an erase needs --reason (why the content must go, for the report)")
    store.backend.sync(addr)  # targets are chosen from every write the log holds
    seqs, input_ids = select_targets(store, addr, fact_ids)
    erasure = LogErasure(
        "e_" + uuid.uuid4().hex[:20],
        addr,
        "all" if fact_ids is None else "facts",
        reason.strip(),
        actor,
        now,
    )
    record = {
        "id": erasure.id,
        "address": addr,
        "what": erasure.what,
        "reason": erasure.reason,
        "actor": actor,
        "erased_at": now,
    }
    # A shared log is blanked first (the backend returns what it blanked; None: the file is
    # the log); this node's copy follows in _blank.
    done = store.backend.erase_shared(record, seqs, input_ids, fact_ids is None, slot)
    if done is not None:
        seqs, input_ids = [f["seq"] for f in done["facts"]], done["inputs"]
    mine = slot if done is None else None  # a shared log recorded the step in its transaction
    if not _blank(store, erasure, seqs, input_ids, mine) and done is not None:
        # another thread applied the shared erasure to this copy already
        erasure.facts, erasure.inputs = done["facts"], done["inputs"]
        erasure.rejections = done["rejections"]
    return erasure


def apply_shared(store: Store, addr: Address, shared: list[dict[str, Any]]) -> int:
    """Blank this node's copy of the shared erasures of a subject it has not applied yet.

    Each is recorded locally as pending (runtime/api/erase.py's resume purges the derived
    data); returns how many were applied.
    """
    key = [addr.tenant, addr.scope, addr.subject]
    done = 0
    with store.write_lock:  # two threads catching up one subject apply each erasure once
        have = {
            r[0]
            for r in store.con.execute(f"SELECT id FROM erasures WHERE {_SUBJECT}", key).fetchall()
        }
        for entry in shared:
            if entry["id"] in have:
                continue
            erasure = LogErasure(
                entry["id"], addr, entry["what"], entry["reason"], entry["actor"],
                entry["erased_at"],
            )  # fmt: skip
            done += _blank(store, erasure, [f["seq"] for f in entry["facts"]], entry["inputs"])
    return done


def _blank(
    store: Store,
    erasure: LogErasure,
    seqs: Sequence[int],
    input_ids: Sequence[str],
    slot: write_keys.Slot | None = None,
) -> bool:
    """Blank the rows in this workspace file and record the erasure as pending (one
    transaction, with a keyed request's step where the file is the log); False when the
    file records this erasure already (nothing done)."""
    addr = erasure.address
    ring = store.signer()
    key = [addr.tenant, addr.scope, addr.subject]
    cols = ", ".join(CONTENT_COLUMNS)
    with store.write_lock:
        con = store.con
        if con.execute("SELECT count(*) FROM erasures WHERE id = ?", [erasure.id]).fetchone()[0]:
            return False
        con.execute("BEGIN")
        try:
            sets = ", ".join(f"{c} = NULL" for c in BLANKED)
            con.execute(
                f"UPDATE facts SET op = '{ERASED_OP}', {sets} WHERE {_SUBJECT} AND seq IN {SEQS}",
                [*key, listed(seqs)],
            )
            rows = con.execute(
                f"SELECT seq, id, kind, path, content_hash, {cols} FROM facts"
                f" WHERE seq IN {SEQS} ORDER BY seq",
                [listed(seqs)],
            ).fetchall()
            records = []
            for seq, fid, kind, path, chash, *content in rows:
                erasure.facts.append({"id": fid, "seq": seq, "kind": kind, "path": path})
                records.append([erasure.id, "facts", fid, seq, chash, _residual(content)])
            con.execute(
                f"UPDATE inputs SET content = '', name = NULL WHERE {_SUBJECT} AND id IN {IDS}",
                [*key, listed(input_ids)],
            )
            reseal(con, ring, "inputs", f"{_SUBJECT} AND id IN {IDS}", [*key, listed(input_ids)])
            for seq, iid, chash in con.execute(
                f"SELECT seq, id, content_hash FROM inputs WHERE id IN {IDS} ORDER BY seq",
                [listed(input_ids)],
            ).fetchall():
                erasure.inputs.append(iid)
                records.append([erasure.id, "inputs", iid, seq, chash, chash])
            _record_rows(con, ring, records)
            where = f"{_SUBJECT} AND detail IS NOT NULL"
            params: list[Any] = list(key)
            if erasure.what != "all":
                where += f" AND input_id IN {IDS}"
                params.append(listed(input_ids))
            erasure.rejections = int(
                con.execute(f"SELECT count(*) FROM rejections WHERE {where}", params).fetchone()[0]
            )
            con.execute(f"UPDATE rejections SET detail = NULL WHERE {where}", params)
            reseal(con, ring, "rejections", where.replace(" AND detail IS NOT NULL", ""), params)
            _write_report(con, ring, erasure, _pending(erasure), insert=True)
            write_keys.record_answer(con, slot, {"erasure": erasure.id})
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return True


def _record_rows(con: duckdb.DuckDBPyConnection, ring: Any, rows: list[list[Any]]) -> None:
    """Insert the sealed erased_rows records at once, through Arrow (no per-value binding)."""
    if not rows:
        return
    import pyarrow as pa  # loaded by the writes that need it: reads never pay for it

    sealed = [[*r, row_mac(ring, "erased_rows", r)] for r in rows]
    names = (*ERASED_ROW_COLUMNS, "mac")
    table = pa.table(
        {n: list(col) for n, col in zip(names, zip(*sealed, strict=True), strict=True)}
    )
    con.register("_uac_erased_rows", table)
    try:
        con.execute("INSERT INTO erased_rows BY NAME SELECT * FROM _uac_erased_rows")
    finally:
        con.unregister("_uac_erased_rows")


def _pending(erasure: LogErasure) -> dict[str, Any]:
    """The report an erase holds until its derived data is purged (ids and counts only)."""
    return {
        "id": erasure.id,
        "status": PENDING,
        "facts": erasure.facts,
        "inputs": erasure.inputs,
        "rejections": erasure.rejections,
    }


def _write_report(
    con: duckdb.DuckDBPyConnection,
    ring: Any,
    erasure: LogErasure,
    report: dict[str, Any],
    *,
    insert: bool,
) -> None:
    a = erasure.address
    text = json.dumps(report, sort_keys=True, default=str)
    if insert:
        values = [erasure.id, a.tenant, a.scope, a.subject, erasure.what, erasure.reason]
        values += [erasure.actor, erasure.erased_at, text]
        con.execute("INSERT INTO erasures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)", values)
    else:
        con.execute("UPDATE erasures SET report = ? WHERE id = ?", [text, erasure.id])
    reseal(con, ring, "erasures", "id = ?", [erasure.id])


def record_report(store: Store, erasure: LogErasure, report: dict[str, Any]) -> None:
    """Complete the erasure's report (sealed); it names ids, tables and files, never content."""
    with store.write_lock:
        _write_report(store.con, store.signer(), erasure, report, insert=False)


def pending_erasures(store: Store) -> list[LogErasure]:
    """Erases whose log side committed but whose derived data was not yet purged."""
    rows = store.con.execute(
        "SELECT id, tenant, scope, subject, scope_of_erase, reason, actor, erased_at, report"
        " FROM erasures WHERE json_extract_string(report, '$.status') = ? ORDER BY erased_at, id",
        [PENDING],
    ).fetchall()
    out = []
    for eid, tenant, scope, subject, what, reason, actor, at, report in rows:
        done = json.loads(report)
        erasure = LogErasure(eid, Address(tenant, scope, subject), what, reason, actor, at)
        erasure.facts, erasure.inputs = done["facts"], done["inputs"]
        erasure.rejections = done["rejections"]
        out.append(erasure)
    return out


def erasure_reports(store: Store, addr: Address | None = None) -> list[dict[str, Any]]:
    """Stored erasure reports (of one subject, or all), oldest first."""
    sql = queries.ERASURES
    params: list[Any] = []
    if addr is not None:
        sql += queries.ERASURES_OF
        params = [addr.tenant, addr.scope, addr.subject]
    rows = store.con.execute(sql + queries.ERASURES_ORDER, params).fetchall()
    return [json.loads(r[0]) for r in rows]


def compact_file(store: Store) -> int:
    """Rewrite the workspace file so no overwritten value survives in free blocks.

    Copies the database into a fresh file, then swaps it in with every other thread's
    statements held out (`Store.exclusive`); threads get new cursors on their next
    statement. Returns the new file's size in bytes.
    """
    db = store.home / DB_FILE
    fresh = store.home / f".{DB_FILE}.compact-{uuid.uuid4().hex[:8]}"
    # Statements and transactions of other threads in flight finish first; new ones wait
    # for the fresh file (fact_log/rwlock.py).
    with store.exclusive() as root:
        name = root.execute("SELECT current_database()").fetchone()[0]
        quoted = str(fresh).replace("'", "''")
        try:
            root.execute(f"ATTACH '{quoted}' AS uac_compact")
            try:
                root.execute(f'COPY FROM DATABASE "{name}" TO uac_compact')
            finally:
                root.execute("DETACH uac_compact")
        except BaseException:
            fresh.unlink(missing_ok=True)
            fresh.with_name(fresh.name + ".wal").unlink(missing_ok=True)
            raise
        store.swap_in(fresh)
    return db.stat().st_size
