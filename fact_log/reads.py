"""Reading the log back: a subject's facts and inputs, checkpoints, verification.

A mixin of `Store` (fact_log/store.py). With a PostgreSQL log the subject's rows are first
copied into this file (`_sync`), so every read here reads DuckDB.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.chain import GENESIS, VerifyReport, fact_problem, utc_naive
from uac.fact_log.duck import is_changed
from uac.fact_log.errors import NotFound
from uac.fact_log.keys import KeyRing, key_path, row_message
from uac.fact_log.rows import Fact, Input, SubjectInfo
from uac.fact_log.tamper import (
    SEALED,
    anchor_problems,
    anchor_rows,
    erased_residuals,
    key_mismatch,
    latest_anchors,
    parse_record,
    read_record,
    reseal,
    verify_tables,
)
from uac.fact_log.values import loads

_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
_FACT_FIELDS = tuple(f.name for f in fields(Fact))  # FACT_COLUMNS order


class LogReads:
    """The Store's read verbs (and `record_checkpoint`, the compiler's one write)."""

    # Provided by Store.
    home: Any
    replica: Any
    ring: KeyRing | None
    write_lock: Any
    _fact_cols: str
    _input_cols: str

    # -- reading ---------------------------------------------------------------------------

    def _sync(self, addr: Address) -> None:
        """With a PostgreSQL log: copy the subject's rows this file lacks before reading."""
        if self.replica is not None:
            self.replica.sync(addr)

    def facts(self, addr: Address, path: str | None = None, since_seq: int = 0) -> list[Fact]:
        """The subject's facts in log order, optionally for one path or after a sequence."""
        self._sync(addr)
        sql = f"SELECT {self._fact_cols} FROM facts WHERE {_SUBJECT} AND seq > ?"
        params: list[Any] = [addr.tenant, addr.scope, addr.subject, since_seq]
        if path is not None:
            sql += " AND path = ?"
            params.append(path)
        return [Fact(*row) for row in self.con.execute(sql + " ORDER BY seq", params).fetchall()]

    def facts_of_kind(self, tenant: str, kind: str, record_key: str | None = None) -> list[Fact]:
        """One tenant's facts of a kind across its subjects (e.g. a user's memberships)."""
        sql = f"SELECT {self._fact_cols} FROM facts WHERE tenant = ? AND kind = ?"
        params: list[Any] = [tenant, kind]
        if record_key is not None:
            sql += " AND record_key = ?"
            params.append(record_key)
        return [Fact(*row) for row in self.con.execute(sql + " ORDER BY seq", params).fetchall()]

    def fact(self, addr: Address, fid: str) -> Fact:
        """One of the subject's facts by id; NotFound if the subject has no such fact."""
        self._sync(addr)
        row = self.con.execute(
            f"SELECT {self._fact_cols} FROM facts WHERE {_SUBJECT} AND id = ?",
            [addr.tenant, addr.scope, addr.subject, fid],
        ).fetchone()
        if row is None:
            raise NotFound(f"subject {addr} has no fact {fid!r}")
        return Fact(*row)

    def inputs(self, addr: Address) -> list[Input]:
        """The subject's archived inputs in arrival order."""
        self._sync(addr)
        rows = self.con.execute(
            f"SELECT {self._input_cols} FROM inputs WHERE {_SUBJECT} ORDER BY seq",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchall()
        return [Input(*row) for row in rows]

    def session_messages(
        self, addr: Address, session_id: str, limit: int, before: dt.datetime | None = None
    ) -> list[tuple[str, dt.datetime]]:
        """The last `limit` user messages of one session said up to `before` (masked text,
        when said), oldest first: ordered by when they were said, so a backfilled message
        reads the messages said before it, not the ones that merely arrived before it."""
        self._sync(addr)  # another node's messages, and its erasures, before anyone reads them
        until = utc_naive(before) if before is not None else dt.datetime.max
        rows = self.con.execute(
            f"SELECT content, observed_at FROM inputs WHERE {_SUBJECT} AND session_id = ? "
            "AND kind = 'message' AND role = 'user' AND observed_at <= ? "
            "ORDER BY observed_at DESC, seq DESC LIMIT ?",
            [addr.tenant, addr.scope, addr.subject, session_id, until, limit],
        ).fetchall()
        return [(text, at) for text, at in reversed(rows)]

    def subjects(self, tenant: str) -> list[SubjectInfo]:
        """Every subject of one tenant that has facts or inputs."""
        if self.replica is not None:
            self.replica.sync_tenant(tenant)
        rows = self.con.execute(
            """
            WITH f AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM facts
                       WHERE tenant = ? GROUP BY ALL),
                 i AS (SELECT scope, subject, count(*) n, max(recorded_at) last_at FROM inputs
                       WHERE tenant = ? GROUP BY ALL)
            SELECT coalesce(f.scope, i.scope), coalesce(f.subject, i.subject),
                   coalesce(f.n, 0), coalesce(i.n, 0), greatest(f.last_at, i.last_at)
            FROM f FULL OUTER JOIN i ON f.scope = i.scope AND f.subject = i.subject
            ORDER BY 1, 2
            """,
            [tenant, tenant],
        ).fetchall()
        return [SubjectInfo(tenant, *row) for row in rows]

    def rejections(self, addr: Address) -> list[dict[str, Any]]:
        """What the gate refused for a subject, oldest first."""
        self._sync(addr)
        cur = self.con.execute(
            "SELECT id, input_id, path, reason, detail, recorded_at FROM rejections"
            f" WHERE {_SUBJECT}"
            " ORDER BY recorded_at, id",
            [addr.tenant, addr.scope, addr.subject],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def record_checkpoint(self, addr: Address, row: dict[str, Any]) -> int:
        """Append one compile attempt (published or failed) to `checkpoints`; returns its id.

        Under the write lock, with an anchor counting the new row in the same transaction."""
        cols = (
            "version",
            "status",
            "watermark",
            "head_id",
            "as_of",
            "known_at",
            "facts",
            "error",
            "timings",
            "started_at",
            "finished_at",
        )
        con = self.con
        with self.write_lock:
            next_id = con.execute("SELECT coalesce(max(id), 0) + 1 FROM checkpoints").fetchone()[0]
            con.execute("BEGIN")
            try:
                con.execute(
                    f"INSERT INTO checkpoints (id, tenant, scope, subject, {', '.join(cols)})"
                    f" VALUES ({', '.join('?' * (len(cols) + 4))})",
                    [next_id, addr.tenant, addr.scope, addr.subject, *(row.get(c) for c in cols)],
                )
                # Sealed from the stored row: the digest covers the values as DuckDB keeps them.
                if "checkpoints" in SEALED:
                    reseal(con, self.signer(), "checkpoints", "id = ?", [next_id])
                    anchor_rows(con, self.signer())  # counts the new row: a deleted one shows
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return next_id

    def checkpoints(self, addr: Address) -> list[dict[str, Any]]:
        """Every compile attempt of a subject, oldest first."""
        cur = self.con.execute(
            f"SELECT * FROM checkpoints WHERE {_SUBJECT} ORDER BY id",
            [addr.tenant, addr.scope, addr.subject],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def next_version(self, addr: Address) -> int:
        """The version number the next published checkpoint of a subject gets."""
        row = self.con.execute(
            f"SELECT coalesce(max(version), 0) + 1 FROM checkpoints WHERE {_SUBJECT}",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchone()
        return int(row[0])

    def changed_subjects(self, tenant: str) -> list[Address]:
        """Subjects with facts newer than their last published (present-time) checkpoint."""
        if self.replica is not None:
            self.replica.sync_tenant(tenant)
        rows = self.con.execute(
            """
            WITH f AS (SELECT scope, subject, max(seq) AS top FROM facts WHERE tenant = ?
                       GROUP BY ALL),
                 c AS (SELECT scope, subject, max(watermark) AS mark FROM checkpoints
                       WHERE tenant = ? AND status = 'published' AND as_of IS NULL
                         AND known_at IS NULL GROUP BY ALL)
            SELECT f.scope, f.subject FROM f LEFT JOIN c USING (scope, subject)
            WHERE c.mark IS NULL OR f.top > c.mark ORDER BY 1, 2
            """,
            [tenant, tenant],
        ).fetchall()
        return [Address(tenant, scope, subject) for scope, subject in rows]

    def is_changed(self, addr: Address) -> bool:
        """True when the subject has facts newer than its last published present-time checkpoint."""
        self._sync(addr)
        return is_changed(self.con, addr.tenant, addr.scope, addr.subject)

    def inferred_schema(self, addr: Address, path: str) -> tuple[int, dict[str, str]] | None:
        """The latest (version, fields) inferred for a collection the catalog lacks."""
        row = self.con.execute(
            "SELECT version, fields FROM schemas WHERE tenant = ? AND scope = ? AND subject = ?"
            " AND path = ? ORDER BY version DESC LIMIT 1",
            [addr.tenant, addr.scope, addr.subject, path],
        ).fetchone()
        return None if row is None else (row[0], loads(row[1]))

    def inferred_schemas(
        self, addr: Address, known_at: dt.datetime | None = None
    ) -> dict[str, dict[str, Any]]:
        """Latest inferred schema of every inferred collection of a subject (as known then)."""
        self._sync(addr)
        rows = self.con.execute(
            "SELECT path, arg_max(fields, version) FROM schemas WHERE tenant = ? AND scope = ?"
            " AND subject = ? AND recorded_at <= coalesce(?, recorded_at)"
            " GROUP BY path ORDER BY path",
            [addr.tenant, addr.scope, addr.subject, known_at],
        ).fetchall()
        return {path: loads(fields) for path, fields in rows}

    # -- verification ----------------------------------------------------------------------

    def verify(self, chunk: int = 20_000, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Walk the chain, the sealed tables and the anchors; report what does not verify.

        The chain: the first fact whose content, plain link or keyed digest is wrong (a log
        rewritten with recomputed plain hashes fails the keyed digest). Then the first bad
        row of each sealed table, anchors naming a head that is gone and, given `anchor` (an
        exported one), whether the log still holds it.
        """
        ring = self.ring
        if self.replica is not None:  # the shared log: every subject's chain, in PostgreSQL
            shared = self.replica.log.verify(ring, anchor)
            copy = tuple(self.replica.verify_copy(ring))  # and the copy this node reads
            return replace(shared, ok=shared.ok and not copy, problems=shared.problems + copy)
        record, record_problem = read_record(self.con, ring)
        problems: list[str] = [record_problem] if record_problem else []
        keyed_from = None if record is None else int(record["facts_from"])
        if ring is None and record is not None:
            problems.append(
                f"the chain key file {key_path(self.home)} is missing, so keyed digests"
                " cannot be checked"
            )
        elif record is None and ring is not None and not self._fact_cols.endswith("NULL AS mac"):
            facts, signed = self.con.execute("SELECT count(*), count(mac) FROM facts").fetchone()
            if signed or (facts and ring.binds):
                # A key that has keyed a log never meets one with facts and no record:
                # the record was deleted (with the digests, to pass the rows as unkeyed).
                problems.append(
                    f"the keying record in meta is missing (deleted): the log holds {facts}"
                    " facts but no keying record, so it is broken, not unkeyed"
                )
        elif record is not None and ring is not None and key_mismatch(record, ring):
            problems.append(str(key_mismatch(record, ring)))
        report = self._walk(chunk, ring, keyed_from if ring is not None else None)
        if ring is not None:
            problems += [f"{t}: {why}" for t, why in verify_tables(self.con, ring, record).items()]
        problems += anchor_problems(self.con, anchor)
        return VerifyReport(
            report.ok and not problems,
            report.checked,
            report.broken_seq,
            report.broken_id,
            report.problem,
            tuple(problems),
            keyed_from,
        )

    def verify_segment(
        self, addr: Address, facts: Sequence[Fact], before: Fact | None
    ) -> str | None:
        """Why the facts a compile is about to fold (after `before`) do not verify, or None.

        Each row's content hash, link, id and keyed digest; on the DuckDB log also that the
        numbering is contiguous, that the newest anchor is signed and its head is still in
        the log, and that the log reaches the watermark a published checkpoint of the
        subject already folded (a cut tail); on a PostgreSQL log's copy, that the subject's
        chain links row to row. One pass over the new rows and one small query.
        """
        ring = self.ring
        if ring is None:
            return "the chain key is not loaded, so the log's keyed digests cannot be checked"
        keyed_from = 0
        if self.replica is None:
            why, keyed_from = self._log_state(addr, ring)
            if why is not None:
                return why
        prev = before.hash if before is not None else GENESIS
        erased: dict[int, tuple[str, str]] | None = None
        for fact in facts:
            row = [getattr(fact, name) for name in _FACT_FIELDS]
            link = prev if self.replica is not None else fact.prev_hash
            key = ring if fact.seq >= keyed_from else None
            why = fact_problem(row, link, key, erased)
            if why is not None and erased is None and "content" in why:
                erased = erased_residuals(self.con, ring)  # a legal erase blanked it?
                why = fact_problem(row, link, key, erased)
            if why is not None:
                return f"fact seq {fact.seq} of {addr}: {why}"
            prev = fact.hash
        return None

    def _log_state(self, addr: Address, ring: KeyRing) -> tuple[str | None, int]:
        """The DuckDB log's keying, numbering, newest anchor and the subject's folded mark,
        read in one statement: (why it does not verify, the first keyed seq)."""
        row = self.con.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'tamper'), (SELECT count(*) FROM facts),"
            " (SELECT coalesce(max(seq), 0) FROM facts),"
            " (SELECT max(watermark) FROM checkpoints WHERE tenant = ? AND scope = ?"
            "  AND subject = ? AND status = 'published' AND as_of IS NULL AND known_at IS NULL),"
            " a.seq, a.head, a.facts, a.inputs, a.recorded_at, a.tally, a.mac,"
            " (SELECT hash FROM facts f WHERE f.seq = a.seq)"
            " FROM (SELECT 1) LEFT JOIN (SELECT * FROM anchors WHERE seq ="
            " (SELECT max(seq) FROM anchors) ORDER BY inputs DESC LIMIT 1) a ON TRUE",
            [addr.tenant, addr.scope, addr.subject],
        ).fetchone()
        value, n, top, mark, *anchor, mac, held = row
        record, why = parse_record(value, ring)
        if why is not None:
            return why, 0
        if record is None and n and ring.binds:
            return "the log holds facts but no keying record (deleted)", 0
        keyed_from = 1 << 62 if record is None else int(record["facts_from"])
        if n != top:
            return f"the log holds {n} facts numbered up to {top} (rows deleted or added)", 0
        if mark is not None and top < mark:
            return (
                f"the log ends at seq {top} but a published checkpoint of {addr} folded it"
                f" up to seq {mark} (facts deleted from the end)"
            ), 0
        if anchor[0] is not None:
            if not ring.check(row_message("anchors", anchor), mac):
                return f"the anchor at seq {anchor[0]} does not match its keyed digest", 0
            if anchor[0] > 0 and held != anchor[1]:
                return (
                    f"the anchor at seq {anchor[0]} names a head the log no longer holds"
                    " (facts deleted from the end or rewritten)"
                ), 0
        return None, keyed_from

    def _walk(self, chunk: int, ring: KeyRing | None, keyed_from: int | None) -> VerifyReport:
        """The fact chain: the first row whose content, link or keyed digest does not verify."""
        expected_prev, expected_seq, checked = GENESIS, 1, 0
        keyed_from = keyed_from if ring is not None and keyed_from is not None else 1 << 62
        erased = erased_residuals(self.con, ring) if ring is not None else None
        scan = self.con.stream(f"SELECT {self._fact_cols} FROM facts ORDER BY seq", size=chunk)
        with scan as rows:
            for row in rows:
                fact = Fact(*row)
                problem = None
                if fact.seq != expected_seq:
                    problem = f"sequence jumps from {expected_seq - 1} to {fact.seq} (rows deleted)"
                else:
                    problem = fact_problem(
                        row, expected_prev, ring if fact.seq >= keyed_from else None, erased
                    )
                if problem:
                    return VerifyReport(False, checked, fact.seq, fact.id, problem)
                expected_prev, expected_seq, checked = fact.hash, fact.seq + 1, checked + 1
        return VerifyReport(True, checked)

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor (or all, oldest first) as JSON-ready dicts for a witness."""
        if self.replica is not None:  # one per subject
            return self.replica.log.anchors(every)
        return latest_anchors(self.con, every)
