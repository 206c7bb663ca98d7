"""Keyed digests for the workspace's other tables, and the anchors that pin the chain's head.

The fact chain (store.py) proves the order and content of facts; these are the rest:

* Sealed tables. Each row of `inputs`, `rejections`, `schemas`, `checkpoints` and `alerts`
  carries `mac`, a keyed digest (fact_log/chain_keys.py) of its other columns, written with the
  row and rewritten whenever the lifecycle updates it (checks/alerts.py). A layer declares
  which of its tables are sealed and in which column order (`seal`), the same way it
  registers its schema, so this module never imports a higher one.
* Anchors. Every commit of the log adds one row (head seq, head hash, fact and input counts,
  time) in the same transaction as the facts. Deleting the last facts leaves the newest
  anchor naming a head that is gone; an anchor exported to an outside witness (`uac anchor
  export`) also catches an attacker who deletes the anchors' tail with the facts'.

Rows written before a workspace had a key are sealed once, when the key is created
(`backfill`); the signed `meta` row `tamper` records the fact seq keying starts at and which
tables were sealed, so a NULL digest after that is a finding, not an old row.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from uac.fact_log.chain_keys import KeyRing, row_message
from uac.fact_log.rwlock import Connection, scan

META_KEY = "tamper"


@dataclass(frozen=True, slots=True)
class Sealed:
    """A table whose rows carry a keyed digest over `columns` (in this order)."""

    table: str
    columns: tuple[str, ...]
    order: str  # ORDER BY for verification: the first mismatch is the oldest
    label: tuple[str, ...]  # columns naming a row in a report
    earlier: tuple[tuple[str, ...], ...] = ()  # the columns of older seal versions, oldest first
    # Columns naming a row uniquely: a counted table, whose row count every anchor records
    # (`tally`), so deleting its rows shows. Empty: not counted.
    identity: tuple[str, ...] = ()

    @property
    def version(self) -> int:
        """The seal version rows are signed with now (1 + the number of older ones)."""
        return len(self.earlier) + 1

    def columns_of(self, version: int) -> tuple[str, ...]:
        """The sealed columns of one version."""
        return (*self.earlier, self.columns)[version - 1]

    def entry(self, version: int | None = None) -> str:
        """This table's name in the keying record: `alerts`, or `alerts@2` from version 2."""
        version = self.version if version is None else version
        return self.table if version == 1 else f"{self.table}@{version}"


SEALED: dict[str, Sealed] = {}


def seal(
    table: str,
    columns: Sequence[str],
    order: str,
    label: Sequence[str],
    earlier: Sequence[Sequence[str]] = (),
    identity: Sequence[str] = (),
) -> Sealed:
    """Declare a sealed table (its layer calls this next to its schema); returns it.

    A layer that seals more columns later keeps the old column lists in `earlier`: the next
    writable open re-signs the rows under the new list, but only if every row still verifies
    under the one it was signed with (an edit made before the upgrade is never blessed).
    A table given an `identity` is also counted: every anchor records its row count, and a
    layer appending to it writes an anchor in the same transaction (`anchor_rows`).
    """
    entry = Sealed(
        table,
        tuple(columns),
        order,
        tuple(label),
        tuple(map(tuple, earlier)),
        tuple(identity),
    )
    known = SEALED.get(table)
    if known is not None and known != entry:
        raise ValueError(f"two different seals declared for table {table!r}")
    SEALED[table] = entry
    return entry


# Version 2 seals `tally` too: the row count of every counted table at that commit.
ANCHORS = seal(
    "anchors",
    ("seq", "head", "facts", "inputs", "recorded_at", "tally"),
    "seq, recorded_at",
    ("seq",),
    earlier=(("seq", "head", "facts", "inputs", "recorded_at"),),
)


# A legal erase (fact_log/erase.py) records each blanked row here: the fact's kept content
# hash and the digest of its blanked content ("residual"), sealed like any table.
ERASED_ROW_COLUMNS = ("erasure", "tbl", "row_id", "seq", "content_hash", "residual")


def erased_residuals(
    con: Connection, ring: KeyRing | None, look: Look | None = None
) -> dict[int, tuple[str, str]]:
    """seq -> (content hash, residual) of erased facts whose record verifies under the key
    (`look`: the catalog as a verification read it once)."""
    if ring is None or not _has_table(con, "erased_rows", look):
        return {}
    cols = ", ".join(ERASED_ROW_COLUMNS)
    query = f"SELECT {cols}, mac FROM erased_rows WHERE tbl = 'facts'"
    return verified_residuals(con.execute(query).fetchall(), ring)


def _has_table(con: Connection, name: str, look: Look | None) -> bool:
    """Whether the database holds a table of this name, in any schema."""
    if look is not None:
        return name in look.named
    found = con.execute(f"SELECT count(*) FROM duckdb_tables() WHERE table_name = {_literal(name)}")
    return bool(found.fetchone()[0])


def verified_residuals(rows: Sequence[Sequence[Any]], ring: KeyRing) -> dict[int, tuple[str, str]]:
    """seq -> (content hash, residual) of the erased_rows records (columns, mac) that verify."""
    out: dict[int, tuple[str, str]] = {}
    for *values, mac in rows:
        if ring.check(row_message("erased_rows", values), mac):
            out[int(values[3])] = (values[4], values[5])
    return out


def row_mac(ring: KeyRing, table: str, row: Sequence[Any]) -> str:
    """The keyed digest of one row of a sealed table (its columns in declared order)."""
    return ring.sign(row_message(table, row))


def reseal(con: Connection, ring: KeyRing, table: str, where: str, params: Sequence[Any]) -> int:
    """Recompute the digest of the rows matching `where` (after an update); returns how many."""
    spec = SEALED[table]
    cols = ", ".join(spec.columns)
    rows = con.execute(f"SELECT rowid, {cols} FROM {table} WHERE {where}", list(params)).fetchall()
    if rows:
        # One statement for all rows (a pass reseals thousands); ids and digests are bound as
        # two strings, not lists: DuckDB's binding probes optional modules per list element.
        con.execute(
            f"UPDATE {table} SET mac = m.mac FROM (SELECT"
            " unnest(string_split(?, chr(30)))::BIGINT AS rid,"
            f" unnest(string_split(?, chr(30))) AS mac) AS m WHERE {table}.rowid = m.rid",
            [
                chr(30).join(str(row[0]) for row in rows),
                chr(30).join(row_mac(ring, table, row[1:]) for row in rows),
            ],
        )
    return len(rows)


def _counted(con: Connection) -> list[Sealed]:
    """The counted tables this database holds, by name."""
    return _counted_of(_tables(con))


def _counted_of(present: Iterable[str]) -> list[Sealed]:
    """The counted tables among these sealed ones, by name."""
    held = set(present)
    return [s for _, s in sorted(SEALED.items()) if s.identity and s.table in held]


def tally(con: Connection) -> str:
    """The row count of every counted table, as the JSON an anchor records (one statement)."""
    specs = _counted(con)
    if not specs:
        return "{}"
    # A row per table: one select of scalar subqueries costs about twice as much to plan.
    counts = dict(
        con.execute(
            " UNION ALL ".join(
                f"SELECT {_literal(s.table)}, count(*) FROM {s.table}" for s in specs
            )
        ).fetchall()
    )
    return json.dumps({s.table: int(counts[s.table]) for s in specs}, separators=(",", ":"))


def write_anchor(
    con: Connection,
    ring: KeyRing,
    head: tuple[int, str],
    inputs: int,
    at: Any,
    counted: bool = True,
) -> None:
    """Anchor a head, the input count and (`counted`: the commit appended to a counted table)
    the counted tables' tally, in the caller's transaction. A commit that appended to none
    records no tally: the counts it would repeat are in an earlier anchor already."""
    values = [head[0], head[1], head[0], inputs, at, tally(con) if counted else None]
    con.execute(
        f"INSERT INTO anchors ({', '.join(ANCHORS.columns)}, mac) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [*values, row_mac(ring, ANCHORS.table, values)],
    )


def anchor_rows(con: Connection, ring: KeyRing, at: Any = None) -> None:
    """Anchor the log as it stands, in the caller's transaction: a layer appending rows to a
    counted table (alerts, checkpoints) calls it, under the store's write lock, so that the
    newest anchor always counts every row and a deleted one shows."""
    seq, head, inputs = con.execute(
        "SELECT (SELECT coalesce(max(seq), 0) FROM facts),"
        " (SELECT hash FROM facts ORDER BY seq DESC LIMIT 1),"
        " (SELECT coalesce(max(seq), 0) FROM inputs)"
    ).fetchone()
    when = at if at is not None else dt.datetime.now(dt.UTC).replace(tzinfo=None)
    write_anchor(con, ring, (int(seq), head or "0" * 64), int(inputs), when)


def _has_tally(con: Connection) -> bool:
    """Whether `anchors` has its tally column (a read-only open of an older file may not).
    Asked of the table's own pragma, not duckdb_columns(), whose first call on a database
    binds every built-in view (~6 ms of a `uac verify`)."""
    return _columns(con)[1]


def tally_problems(
    con: Connection, only: Iterable[str] | None = None, look: Look | None = None
) -> list[str]:
    """Counted tables whose rows do not match what the anchors counted, or repeat a row.

    Every commit that appends to a counted table anchors its new count in the same
    transaction, so the largest count any anchor records is the table's row count: fewer
    rows were deleted; more were added outside uac (or counted by anchors since deleted).
    A row deleted and another copied in its place keeps the count but repeats an identity.
    `look`: the catalog and keying record as a verification read them once.
    """
    sealed, tallied = (look.sealed, look.tallied) if look is not None else _columns(con)
    specs = [s for s in _counted_of(sealed) if only is None or s.table in set(only)]
    if not specs or not tallied:
        return []
    counted: dict[str, int] = json.loads(tally_of_anchors(con))
    # Once the keying record seals anchors with their tally, every row was counted by some
    # anchor (the upgrade's open counts the rows it finds): none counting a table means 0.
    record = look.record if look is not None else read_record(con, None)[0]
    started = record is not None and ANCHORS.entry() in record.get("tables", ())
    out: list[str] = []
    # Every table's row count and distinct identities in one statement, a row per table:
    # one select of scalar subqueries over them all costs several times more to plan.
    counts = {
        n: (held, distinct)
        for n, held, distinct in con.execute(
            " UNION ALL ".join(
                f"SELECT {n}, coalesce(sum(k), 0), count(*) FROM"
                f" (SELECT count(*) AS k FROM {spec.table} GROUP BY {', '.join(spec.identity)})"
                for n, spec in enumerate(specs)
            )
        ).fetchall()
    }
    for n, spec in enumerate(specs):
        ident = ", ".join(spec.identity)
        held, distinct = counts[n]
        if held != distinct:
            out.append(
                f"{spec.table}: {held - distinct} rows repeat another row's {ident} (copied in,"
                " in place of deleted ones)"
            )
        top = counted.get(spec.table, 0 if started else None)
        if top is None:
            continue  # no anchor has counted it yet (the open after an upgrade does)
        if held < top:
            out.append(
                f"{spec.table}: an anchor counts {top} rows but the table holds {held}"
                " (rows deleted)"
            )
        elif held > top:
            out.append(
                f"{spec.table}: {held - top} rows that no anchor counts (the anchors of their"
                " commits deleted, or rows added outside uac)"
            )
    return out


class Look:
    """What the statements of one verification share, read once: the table names in any
    schema (`named`), the main schema's tables with a keyed digest column (`sealed`),
    whether `anchors` has its tally column, and the keying record (each statement asking
    the catalog again costs ~1 ms of a `uac verify`)."""

    __slots__ = ("named", "record", "sealed", "tallied")

    def __init__(self, con: Connection, record: dict[str, Any] | None):
        rows = con.execute(
            "SELECT database_name = current_database() AND schema_name = 'main', table_name,"
            " sql FROM duckdb_tables()"
        ).fetchall()
        self.named = frozenset(name for _, name, _ in rows)
        state = frozenset((name, sql) for main, name, sql in rows if main)
        self.sealed, self.tallied = _columns_of(con, state)
        self.record = record


def _tables(con: Connection) -> set[str]:
    """The tables with a keyed digest column."""
    return set(_columns(con)[0])


def _columns(con: Connection) -> tuple[frozenset[str], bool]:
    """The tables with a keyed digest column, and whether `anchors` is one with its tally
    column. Not through duckdb_columns(): its first call on a database binds every built-in
    view (~10 ms), and every open and commit asks this. The answer is kept per catalog state
    (each table's name and definition), which one cheap duckdb_tables() query reads."""
    return _columns_of(con, _main_tables(con))


def _main_tables(con: Connection) -> frozenset[tuple[str, str]]:
    """The main schema's tables, as (name, definition)."""
    return frozenset(
        con.execute(
            "SELECT table_name, sql FROM duckdb_tables()"
            " WHERE database_name = current_database() AND schema_name = 'main'"
        ).fetchall()
    )


def _columns_of(con: Connection, state: frozenset[tuple[str, str]]) -> tuple[frozenset[str], bool]:
    """`_columns` of one catalog state (its tables' names and definitions)."""
    known = _MAC_TABLES.get(state)
    if known is not None:
        return known
    found: set[tuple[str, str]] = set()
    if state:
        rows = con.execute(
            " UNION ALL ".join(
                f"SELECT {_literal(n)}, name FROM pragma_table_info({_literal(n)})"
                " WHERE name = 'mac' OR name = 'tally'"
                for n, _ in sorted(state)  # one text for one catalog (fact_log/read_cache.py)
            )
        ).fetchall()
        found = {(r[0], r[1]) for r in rows}
    sealed = frozenset(table for table, name in found if name == "mac")
    answer = sealed, "anchors" in sealed and ("anchors", "tally") in found
    if len(_MAC_TABLES) >= 64:  # a bound, not a policy: catalogs seldom change
        _MAC_TABLES.clear()
    _MAC_TABLES[state] = answer
    return answer


_MAC_TABLES: dict[frozenset[tuple[str, str]], tuple[frozenset[str], bool]] = {}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _meta_message(record: dict[str, Any]) -> str:
    return "meta:" + json.dumps(record, sort_keys=True, separators=(",", ":"))


def read_record(con: Connection, ring: KeyRing | None) -> tuple[dict[str, Any] | None, str | None]:
    """The signed keying record ({facts_from, tables}) and a problem if it does not verify."""
    # The key as a literal, not a bound parameter: DuckDB's first bound parameter imports
    # `uuid` (and with it `platform`), ~3 ms of a read that binds nothing else.
    row = con.execute(f"SELECT value FROM meta WHERE key = {_literal(META_KEY)}").fetchone()
    return parse_record(None if row is None else row[0], ring)


def parse_record(
    value: str | None, ring: KeyRing | None
) -> tuple[dict[str, Any] | None, str | None]:
    """`read_record` of the meta row's value (None: no row)."""
    if value is None:
        return None, None
    try:
        stored = json.loads(value)
        record, mac = stored["record"], stored["mac"]
    except (ValueError, KeyError, TypeError):
        return None, "the keying record in meta is corrupted"
    if ring is not None and not ring.check(_meta_message(record), mac):
        return record, "the keying record in meta does not match its keyed digest (edited)"
    return record, None


def key_mismatch(record: dict[str, Any], ring: KeyRing) -> str | None:
    """Why the key ring is not the one the keying record names (None: it is, or unnamed)."""
    named = record.get("key")
    if named is None or named == ring.key_id():
        return None
    return (
        f"its log is keyed by key {named.split(':')[0]} ({named}) but the chain key file"
        f" {ring.path} holds another key; point UAC_CHAIN_KEY_FILE at this log's key"
    )


def unkeyed_message(home: Any, facts: int, ring: KeyRing) -> str:
    """The refusal of a log with facts but no keying record, under a key that binds logs."""
    return (
        f"workspace {home} holds {facts} facts but no keying record, although its chain key"
        f" file {ring.path} has keyed a log: the record was deleted or the log replaced, so"
        " it is broken, not new; restore the database from a backup ('uac verify' shows what"
        " is broken)"
    )


def backfill(con: Connection, ring: KeyRing, fresh_key: bool) -> None:
    """Seal rows of tables that got their digest column since the last open (one transaction).

    The first keyed open records the seq keying starts at; later opens seal only tables a
    newer layer just migrated. A workspace whose key already existed but whose record is
    gone is left alone: verify reports it instead of blessing whatever the file holds now.
    """
    record, problem = read_record(con, ring)
    if problem is not None or (record is None and not fresh_key):
        return
    present = sorted(_tables(con) & set(SEALED))
    if record is not None and {SEALED[t].entry() for t in present} <= set(record["tables"]):
        return
    con.execute("BEGIN")
    try:
        if record is None:
            top = con.execute("SELECT coalesce(max(seq), 0) FROM facts").fetchone()[0]
            # The genesis of keying: where it starts and the head it starts after, and
            # which key (a fingerprint, fact_log/chain_keys.py) keys the log.
            genesis = con.execute("SELECT hash FROM facts ORDER BY seq DESC LIMIT 1").fetchone()
            record = {
                "facts_from": int(top) + 1,
                "tables": [],
                "key": ring.key_id(),
                "genesis": genesis[0] if genesis else "0" * 64,
            }
            if top:  # facts before keying keep plain links: anchor their head now
                seq, head, inputs, at = con.execute(
                    "SELECT seq, hash, (SELECT coalesce(max(seq), 0) FROM inputs),"
                    " recorded_at FROM facts ORDER BY seq DESC LIMIT 1"
                ).fetchone()
                write_anchor(con, ring, (seq, head), inputs, at)
        entries = []
        for table in present:
            spec, version = SEALED[table], sealed_version(record, table)
            if version is None:
                reseal(con, ring, table, "mac IS NULL", [])
            elif version != spec.version:
                if _first_mismatch(con, ring, spec, version) is not None:
                    entries.append(spec.entry(version))  # edited before the upgrade: verify says
                    continue
                reseal(con, ring, table, "TRUE", [])
            entries.append(spec.entry())
        if ANCHORS.entry() not in record["tables"] and any(json.loads(tally(con)).values()):
            anchor_rows(con, ring)  # rows from before anchors counted them: count them now
        record = {**record, "tables": entries}
        value = json.dumps({"record": record, "mac": ring.sign(_meta_message(record))})
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [META_KEY, value])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def verify_tables(
    con: Connection,
    ring: KeyRing,
    record: dict[str, Any] | None,
    only: Iterable[str] | None = None,
    look: Look | None = None,
    required: Iterable[str] = (),
) -> dict[str, str]:
    """The first row whose digest does not verify, per sealed table present (table -> why);
    `only` limits the walk to some tables, `look` is the catalog as a verification read it,
    `required` names tables that must be there sealed whatever the keying record says (a
    PostgreSQL node's copy of the shared log, which has no keying record of its own)."""
    found: dict[str, str] = {}
    tables = (look.sealed if look is not None else _tables(con)) & set(SEALED)
    # A table the keying record says is sealed must still be there with its digests:
    # dropping the table, or its mac column after editing rows, must not pass as ok.
    listed = {entry.partition("@")[0] for entry in record["tables"]} if record else set()
    why = "the keying record lists it as sealed" if record else "it is sealed"
    listed |= set(required)
    for table in sorted(listed - tables if only is None else (listed - tables) & set(only)):
        found[table] = (
            f"{why}, but its keyed digest column is gone"
            if table in (look.named if look is not None else {n for n, _ in _main_tables(con)})
            else f"{why}, but the table is gone"
        )
    for table in sorted(tables if only is None else tables & set(only)):
        spec = SEALED[table]
        version = sealed_version(record, table)
        problem = _first_mismatch(con, ring, spec, version or spec.version, version is None)
        if problem is not None:
            found[table] = problem
    return dict(sorted(found.items()))


def sealed_version(record: dict[str, Any] | None, table: str) -> int | None:
    """The seal version the keying record says a table's rows are signed with (None: not yet)."""
    for entry in record["tables"] if record else ():
        name, _, version = entry.partition("@")
        if name == table:
            return int(version or 1)
    return None


def _first_mismatch(
    con: Connection,
    ring: KeyRing,
    spec: Sealed,
    version: int,
    skip_unsigned: bool = False,
) -> str | None:
    """Why the first row (in the table's order) fails its digest under one seal version.

    Every row is checked first as the table stores them, without sorting: a table whose
    rows all verify (nearly always) needs no order. Only a table with a bad row is read
    again in its order, so that the oldest bad row is the one named."""
    columns = ", ".join(spec.columns_of(version))
    if _mismatch(con, ring, spec, f"SELECT mac, {columns} FROM {spec.table}", (), skip_unsigned):
        label = ", ".join(spec.label)
        sql = f"SELECT mac, {label}, {columns} FROM {spec.table} ORDER BY {spec.order}"
        return _mismatch(con, ring, spec, sql, spec.label, skip_unsigned)
    return None


def _mismatch(
    con: Connection,
    ring: KeyRing,
    spec: Sealed,
    sql: str,
    label: tuple[str, ...],
    skip_unsigned: bool,
) -> str | None:
    """Why the first row `sql` reads (mac, the `label` columns, the sealed ones) fails."""
    width = len(label)
    with scan(con, sql) as rows:
        for mac, *rest in rows:
            if mac is None and skip_unsigned:
                continue  # migrated since the last writable open: sealed on the next one
            if not ring.check(row_message(spec.table, rest[width:]), mac):
                name = ", ".join(f"{c}={v}" for c, v in zip(label, rest, strict=False))
                return f"row {name} does not match its keyed digest (edited)"
    return None


def anchor_problems(
    con: Connection, exported: dict[str, Any] | None = None, look: Look | None = None
) -> list[str]:
    """Anchors naming a head the log no longer holds (truncation), and the exported one
    (`look`: the catalog and keying record as a verification read them once)."""
    out: list[str] = []
    if _has_table(con, "anchors", look):
        row = con.execute(
            "SELECT a.seq, a.head, a.inputs FROM anchors a LEFT JOIN facts f ON f.seq = a.seq"
            " WHERE a.seq > 0 AND f.hash IS DISTINCT FROM a.head ORDER BY a.seq DESC LIMIT 1"
        ).fetchone()
        if row is not None:
            out.append(
                f"the anchor at seq {row[0]} names head {row[1][:16]}… which the log no longer"
                " holds (facts deleted from the end or rewritten)"
            )
        checkpoints = "checkpoints" in (look.sealed if look is not None else _tables(con))
        # The tops and counts below in one statement, a row each (n, top, count).
        parts = [
            "SELECT 0, max(inputs), NULL FROM anchors",
            "SELECT 1, max(seq), NULL FROM anchors",
            "SELECT 2, coalesce(max(seq), 0), count(*) FROM inputs",
            "SELECT 3, coalesce(max(seq), 0), NULL FROM facts",
        ]
        if checkpoints:
            parts.append("SELECT 4, coalesce(max(id), 0), count(*) FROM checkpoints")
        tops = {
            n: (top, count) for n, top, count in con.execute(" UNION ALL ".join(parts)).fetchall()
        }
        anchored, inputs = tops[0][0], tops[2][0]
        if anchored is not None and inputs < anchored:
            out.append(
                f"an anchor counts {anchored} inputs but the log holds only {inputs}"
                " (inputs deleted from the end)"
            )
        head, facts = tops[1][0], tops[3][0]
        if head is not None and facts > head:  # every commit anchors its head
            out.append(
                f"facts after seq {head} (up to {facts}) are named by no anchor (the anchors"
                " of their commits deleted)"
            )
        out.extend(tally_problems(con, look=look))
        numbered = [("inputs", tops[2])] + ([("checkpoints", tops[4])] if checkpoints else [])
        for table, (top, count) in numbered:
            if count != top:  # numbered 1, 2, ... by the one writer: a gap is a deleted row
                out.append(
                    f"{table}: {top - count} of the rows numbered up to {top} are missing (deleted)"
                )
    if exported is not None:
        out.extend(_against_export(con, exported))
    return out


def _against_export(con: Connection, anchor: dict[str, Any]) -> list[str]:
    try:
        seq, head = int(anchor["seq"]), str(anchor["head"])
    except (KeyError, TypeError, ValueError):
        return ["the exported anchor has no seq and head"]
    out: list[str] = []
    try:
        inputs = int(anchor.get("inputs") or 0)
    except (TypeError, ValueError):
        inputs = 0
    held = con.execute("SELECT coalesce(max(seq), 0) FROM inputs").fetchone()[0]
    if held < inputs:  # the inputs' tail cut together with the anchors that counted it
        out.append(
            f"the exported anchor counts {inputs} inputs but the log holds only {held}"
            " (inputs deleted from the end)"
        )
    out.extend(_tally_against_export(con, anchor.get("tally") or anchor.get("counted")))
    if seq == 0:
        return out
    row = con.execute("SELECT hash FROM facts WHERE seq = ?", [seq]).fetchone()
    if row is None:
        top = con.execute("SELECT coalesce(max(seq), 0) FROM facts").fetchone()[0]
        out.append(
            f"the exported anchor's seq {seq} is gone: the log ends at seq {top} (truncated)"
        )
    elif row[0] != head:
        out.append(f"fact seq {seq} does not have the exported anchor's head hash (rewritten)")
    return out


def _tally_against_export(con: Connection, value: Any) -> list[str]:
    """Counted tables holding fewer rows than an exported anchor counted (tails cut together
    with the anchors that counted them)."""
    try:
        loaded = json.loads(value) if isinstance(value, str) else dict(value or {})
        counted = {t: int(n) for t, n in loaded.items()}
    except (ValueError, TypeError, AttributeError):
        return ["the exported anchor's tally is not readable"]
    out = []
    for spec in _counted(con):  # known tables only: a name from the file never reaches SQL
        if spec.table in counted:
            held = con.execute(f"SELECT count(*) FROM {spec.table}").fetchone()[0]
            if held < counted[spec.table]:
                out.append(
                    f"the exported anchor counts {counted[spec.table]} {spec.table} rows but"
                    f" the log holds only {held} (rows deleted)"
                )
    return out


def latest_anchors(con: Connection, every: bool = False) -> list[dict[str, Any]]:
    """The newest anchor (or all of them, oldest first) as JSON-ready dicts."""
    has = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'anchors'")
    if not has.fetchone()[0]:
        return []  # a read-only open of a workspace from before anchors
    names: tuple[str, ...] = ("seq", "head", "facts", "inputs", "at", "mac")
    cols = "seq, head, facts, inputs, recorded_at, mac"
    if _has_tally(con):
        names, cols = (*names, "tally"), cols + ", tally"
    # Anchors of one head are told apart by their tallies (alerts or checkpoints written
    # since): counts only grow, field by field, so the longest, then greatest, is the newest.
    keys = ["seq", "inputs"]
    if "tally" in names:
        keys += ["length(coalesce(tally, ''))", "tally"]
    sql = f"SELECT {cols} FROM anchors ORDER BY {', '.join(keys)}"
    if not every:
        sql = f"SELECT {cols} FROM anchors ORDER BY {' DESC, '.join(keys)} DESC LIMIT 1"
    out = []
    for row in con.execute(sql).fetchall():
        item = dict(zip(names, row, strict=True))
        at = item["at"]
        item["at"] = at.isoformat() if isinstance(at, dt.datetime) else at
        out.append(item)
    if not every and out and "tally" in names and out[0]["tally"] is None:
        # A commit that appended to no counted table records no tally: the witness gets the
        # newest counts (they still hold: counts only grow), outside the signed row.
        out[0]["counted"] = tally_of_anchors(con)
    return out


def tally_of_anchors(con: Connection) -> str:
    """The largest count each counted table has in any anchor, as tally JSON."""
    counted: dict[str, int] = {}
    for (value,) in con.execute("SELECT tally FROM anchors WHERE tally IS NOT NULL").fetchall():
        try:
            for table, n in json.loads(value).items():
                counted[table] = max(counted.get(table, 0), int(n))
        except (ValueError, TypeError, AttributeError):
            continue  # an edited anchor: its keyed digest fails (verify_tables says so)
    return json.dumps(counted, sort_keys=True, separators=(",", ":"))
