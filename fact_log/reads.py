"""Reading the log back: a subject's facts and inputs, checkpoints, verification.

A mixin of `Store` (fact_log/store.py). The store's backend first brings the file up to date
(`backend.sync`: a no-op on the DuckDB log, a copy from a PostgreSQL log), so every read here
reads DuckDB.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from uac.fact_log import queries
from uac.fact_log.addressing import Address
from uac.fact_log.backends.base import LogBackend
from uac.fact_log.chain import GENESIS, VerifyReport, fact_problem, utc_naive
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.duck import is_changed
from uac.fact_log.errors import NotFound
from uac.fact_log.rows import Fact, Input, SubjectInfo
from uac.fact_log.tamper import (
    SEALED,
    anchor_rows,
    erased_residuals,
    reseal,
)
from uac.fact_log.values import loads

_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"
_FACT_FIELDS = tuple(f.name for f in fields(Fact))  # FACT_COLUMNS order


class LogReads:
    """The Store's read verbs (and `record_checkpoint`, the compiler's one write)."""

    # Provided by Store.
    home: Any
    backend: LogBackend
    ring: KeyRing | None
    write_lock: Any
    _fact_cols: str
    _input_cols: str

    # -- reading ---------------------------------------------------------------------------

    def _sync(self, addr: Address) -> None:
        """Make the file hold every write of the subject the log has before reading."""
        self.backend.sync(addr)

    def facts(self, addr: Address, path: str | None = None, since_seq: int = 0) -> list[Fact]:
        """The subject's facts in log order, optionally for one path or after a sequence."""
        self._sync(addr)
        sql = queries.FACTS.format(columns=self._fact_cols)
        params: list[Any] = [addr.tenant, addr.scope, addr.subject, since_seq]
        if path is not None:
            sql += queries.FACTS_AT_PATH
            params.append(path)
        rows = self.con.execute(sql + queries.FACTS_ORDER, params).fetchall()
        return [Fact(*row) for row in rows]

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
            queries.INPUTS.format(columns=self._input_cols),
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
        self.backend.sync_tenant(tenant)
        rows = self.con.execute(queries.SUBJECTS, [tenant, tenant]).fetchall()
        return [SubjectInfo(tenant, *row) for row in rows]

    def rejections(self, addr: Address) -> list[dict[str, Any]]:
        """What the gate refused for a subject, oldest first."""
        self._sync(addr)
        cur = self.con.execute(queries.REJECTIONS, [addr.tenant, addr.scope, addr.subject])
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
        self.backend.sync_tenant(tenant)
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
        return self.backend.verify(chunk, anchor)

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
        why, keyed_from = self.backend.segment_check(addr, ring)
        if why is not None:
            return why
        one_chain = self.backend.one_chain
        prev = before.hash if before is not None else GENESIS
        erased: dict[int, tuple[str, str]] | None = None
        for fact in facts:
            row = [getattr(fact, name) for name in _FACT_FIELDS]
            link = fact.prev_hash if one_chain else prev
            key = ring if fact.seq >= keyed_from else None
            why = fact_problem(row, link, key, erased)
            if why is not None and erased is None and "content" in why:
                erased = erased_residuals(self.con, ring)  # a legal erase blanked it?
                why = fact_problem(row, link, key, erased)
            if why is not None:
                return f"fact seq {fact.seq} of {addr}: {why}"
            prev = fact.hash
        return None

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor (or all, oldest first) as JSON-ready dicts for a witness."""
        return self.backend.anchors(every)
