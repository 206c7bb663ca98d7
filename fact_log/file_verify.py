"""Verifying the log of a workspace's DuckDB file: the fact chain, the sealed tables and the
anchors, over any connection to it.

The DuckDB backend runs it on the store's gated connection (`uac verify` through `Memory`,
a server's verify); a local `uac verify` runs it on a read-only connection of its own
(runtime/api/lean_reads.py), without the store, its backends or the DuckDB package's start.
The same checks either way: one function.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uac.fact_log.chain_keys import KeyRing, key_path
from uac.fact_log.chain_rows import FACT_COLUMNS, GENESIS, VerifyReport, fact_problem
from uac.fact_log.rwlock import Connection, one, scan
from uac.fact_log.tamper import (
    META_KEY,
    Look,
    anchor_problems,
    erased_residuals,
    key_mismatch,
    parse_record,
    read_record,
    verify_tables,
)


def verify_file(
    con: Connection,
    ring: KeyRing | None,
    home: Path,
    fact_cols: str,
    chunk: int,
    anchor: dict[str, Any] | None,
    meta: Mapping[str, str] | None = None,
) -> VerifyReport:
    """The chain: the first fact whose content, plain link or keyed digest is wrong (a log
    rewritten with recomputed plain hashes fails the keyed digest). Then the first bad
    row of each sealed table, anchors naming a head that is gone and, given `anchor` (an
    exported one), whether the log still holds it.

    `fact_cols`: the facts' columns as the store selects them (`NULL AS mac` on a log
    from before keyed digests); `meta`: the `meta` table's rows, if the caller read them.
    The catalog is asked once for every check (`Look`)."""
    if meta is None:
        record, record_problem = read_record(con, ring)
    else:
        record, record_problem = parse_record(meta.get(META_KEY), ring)
    look = Look(con, record)
    problems: list[str] = [record_problem] if record_problem else []
    keyed_from = None if record is None else int(record["facts_from"])
    if ring is None and record is not None:
        problems.append(
            f"the chain key file {key_path(home)} is missing, so keyed digests cannot be checked"
        )
    elif record is None and ring is not None and not fact_cols.endswith("NULL AS mac"):
        facts, signed = one(con.execute("SELECT count(*), count(mac) FROM facts"))
        if signed or (facts and ring.binds):
            # A key that has keyed a log never meets one with facts and no record:
            # the record was deleted (with the digests, to pass the rows as unkeyed).
            problems.append(
                f"the keying record in meta is missing (deleted): the log holds {facts}"
                " facts but no keying record, so it is broken, not unkeyed"
            )
    elif record is not None and ring is not None and key_mismatch(record, ring):
        problems.append(str(key_mismatch(record, ring)))
    keyed = keyed_from if ring is not None else None
    report = _walk(con, fact_cols, chunk, ring, keyed, look)
    if ring is not None:
        found = verify_tables(con, ring, record, look=look)
        problems += [f"{t}: {why}" for t, why in found.items()]
    problems += anchor_problems(con, anchor, look)
    return VerifyReport(
        report.ok and not problems,
        report.checked,
        report.broken_seq,
        report.broken_id,
        report.problem,
        tuple(problems),
        keyed_from,
    )


def _walk(
    con: Connection,
    fact_cols: str,
    chunk: int,
    ring: KeyRing | None,
    keyed_from: int | None,
    look: Look,
) -> VerifyReport:
    """The fact chain: the first row whose content, link or keyed digest does not verify.

    Walked first as the table stores the rows, without sorting: the log appends in seq
    order, so a log that verifies (nearly always) comes out as 1, 2, 3, ... and the walk
    in seq order would see the same rows in the same order. Any problem, a row out of order
    included, and the walk is done again in seq order, which says what it says now."""
    keyed_from = keyed_from if ring is not None and keyed_from is not None else 1 << 62
    erased = erased_residuals(con, ring, look) if ring is not None else None
    sql = f"SELECT {fact_cols} FROM facts"
    report = _walk_rows(con, sql, chunk, ring, keyed_from, erased)
    if report.ok:
        return report
    return _walk_rows(con, sql + " ORDER BY seq", chunk, ring, keyed_from, erased)


def _walk_rows(
    con: Connection,
    sql: str,
    chunk: int,
    ring: KeyRing | None,
    keyed_from: int,
    erased: Mapping[int, tuple[str, str]] | None,
) -> VerifyReport:
    """`_walk` over the rows `sql` reads, in the order it reads them."""
    expected_prev, expected_seq, checked = GENESIS, 1, 0
    with scan(con, sql, size=chunk) as rows:
        for row in rows:
            # The row's seq, id and chain hash by FACT_COLUMNS' order, as `fact_problem`
            # reads them: a `Fact` per row (25 fields set one by one) cost more than the walk.
            seq, fid, link = row[_SEQ], row[_ID], row[_HASH]
            problem = None
            if seq != expected_seq:
                problem = f"sequence jumps from {expected_seq - 1} to {seq} (rows deleted)"
            else:
                problem = fact_problem(
                    row, expected_prev, ring if seq >= keyed_from else None, erased
                )
            if problem:
                return VerifyReport(False, checked, seq, fid, problem)
            expected_prev, expected_seq, checked = link, seq + 1, checked + 1
    return VerifyReport(True, checked)


_NAMES = [name for name, _, _ in FACT_COLUMNS]
_SEQ, _ID, _HASH = _NAMES.index("seq"), _NAMES.index("id"), _NAMES.index("hash") - len(_NAMES)
