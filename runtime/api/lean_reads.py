"""Local read verbs answered from a read-only look at the workspace, without `Memory`.

A local `uac facts`, `inputs`, `subjects`, `rejections`, `erasures`, `alerts`, `questions`
or `manifest` needs a few SQL statements over the workspace's DuckDB file and, for the
facts' statuses and the manifest, one file of the subject's current checkpoint; `why` and
`diff` also import the checkpoint's typed state (verified by the loader, as the verb
does), `why` only the part of it the expression names; `verify` walks the whole log with
the store's own checks (fact_log/file_verify.py). `Memory` would first import pydantic
(the verb table), the compiler, the checks and every service; this module imports the row
vocabulary and the checkpoint loader's checks, nothing else (tests/test_read_imports.py),
and DuckDB's engine only when a statement must be asked of the log: the statements of every
verb but `verify` and `search` are answered from the rows an earlier look kept while the
log's files are unchanged (fact_log/read_cache.py; tests/test_read_cache.py), so a repeated
read of a quiet workspace neither imports the engine nor opens the file.

`answer` returns exactly what `verbs.run` returns for the same call on a `Memory` opened
read-only (tests/test_lean_reads.py compares them), or None where it would not answer the
same way, and the caller then runs the full verb: a workspace that does not exist, is
bound to PostgreSQL or holds tables at other versions than this uac's (the full open
migrates or explains), an operator's audit of quarantined text (it needs the secret
filter), an argument it does not know. Checks are the full verb's: the subject and tenant
named and parsed alike, the checkpoint refused when its signature, placement or any
file's digest does not verify or its pointer was rolled back (`loader.verified_files`,
`queries.served_problem`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.compiler import loader
from uac.fact_log import queries
from uac.fact_log.addressing import Address, check_name, parse_subject
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.errors import NotFound, WorkspaceError
from uac.fact_log.quarantine import QUARANTINED, marked, quarantined_ids
from uac.fact_log.read_cache import CachedLog, Changed
from uac.runtime.api.wire import plain

if TYPE_CHECKING:
    from uac.checks.model import Kind

DB_FILE = "uac.duckdb"  # fact_log/store.py DB_FILE
# The table versions of every owner a read-only `Memory` registers (`meta`'s schema_version
# rows, fact_log/schema.py; tests/test_lean_reads.py holds them to it): a workspace whose
# rows differ, or lack one, takes the full verb, which migrates or explains. Rows of owners
# a read never loads (the LLM ledger) are not looked at, as that open does not.
VERSIONS = {
    "schema_version": "3",
    "schema_version.tamper": "2",
    "schema_version.compiler": "2",
    "schema_version.checks": "3",
    "schema_version.erase": "1",
    "schema_version.reactions": "1",
    "schema_version.write_keys": "1",
    "schema_version.idempotency": "1",
    "schema_version.service": "1",
    "schema_version.search": "1",
}
BOUND = "log_url"  # meta key of a workspace bound to PostgreSQL (fact_log/backends/postgres.py)


class _Workspace:
    """One read-only connection to a workspace file and the tenant the call names."""

    def __init__(
        self, home: Path, tenant: str, con: Any, ring: KeyRing | None, meta: dict[str, str]
    ):
        self.home = home
        self.tenant = tenant
        self.con = con
        self.ring = ring  # the chain key ring, loaded as Memory's open loads it
        self.meta = meta  # the `meta` table's rows, read first

    def address(self, subject: str | None) -> Address:
        return parse_subject(subject, self.tenant)  # type: ignore[arg-type]

    def rows(self, sql: str, params: list[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
        cur = self.con.execute(sql, params)
        return [d[0] for d in cur.description], cur.fetchall()

    def served(self, addr: Address) -> int:
        """The subject's current version, refused as `Reader._current_dir` refuses it."""
        version, directory = loader.version_dir(self.home, addr)
        head = loader.folded_head(directory)  # one chain: the DuckDB log
        problem = queries.served_problem(
            self.con, addr.tenant, addr.scope, addr.subject, version, head, self.ring
        )
        if problem is not None:
            raise WorkspaceError(problem)
        return version

    def checked(self, addr: Address) -> loader.Checked:
        """The subject's current checkpoint, refused as `Reader._checked` refuses it."""
        return loader.verified_files(self.home, addr, self.served(addr))


def _facts(ws: _Workspace, subject: str | None, path: str | None = None) -> Any:
    addr = ws.address(subject)
    sql = queries.FACTS.format(columns="*")
    params: list[Any] = [addr.tenant, addr.scope, addr.subject, 0]
    if path is not None:
        sql += queries.FACTS_AT_PATH
        params.append(path)
    names, rows = ws.rows(sql + queries.FACTS_ORDER, params)
    try:
        statuses = ws.checked(addr).provenance["facts"]
    except NotFound:
        statuses = {}
    out = _plain_rows(names, rows, decoded=("value", "evidence"))
    for fact in out:
        fact["derived"] = statuses.get(fact["id"])
    return out


_KEPT = frozenset({str, int, bool, type(None)})  # cells plain already (most of them)
# Cells `plain` would convert, by their exact type: what it makes of them, without its
# walk through every other kind of value (a listing's times and confidences).
_CELLS: dict[type, Callable[[Any], Any]] = {
    dt.datetime: dt.datetime.isoformat,
    dt.date: dt.date.isoformat,
    float: lambda f: f if f == f else None,  # NaN is not JSON
}
# JSON text parsed straight to what `plain(values.loads(text))` makes of it: `loads` keeps a
# non-integer number exact as a Decimal and `plain` shows a Decimal as its string, NaN as
# None (infinities stay floats); objects, arrays, strings, integers, booleans and null are
# plain already. One pass of the C scanner instead of a parse and a walk of every value.
_PLAIN_JSON = json.JSONDecoder(
    parse_float=lambda text: str(Decimal(text)),
    parse_constant={"NaN": None, "Infinity": math.inf, "-Infinity": -math.inf}.__getitem__,
)


def _cell(cell: Any) -> Any:
    return cell if type(cell) in _KEPT else _CELLS.get(type(cell), plain)(cell)


def _plain_rows(
    names: list[str], rows: list[tuple[Any, ...]], decoded: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Rows as `plain` shows the dataclasses they stand for: cells that are plain already
    are kept as they are, others (times, floats) go through `plain`, and the `decoded`
    columns (JSON text) are parsed as the row types' properties parse them.

    A column at a time: a column whose cells are all plain already (most of them: ids,
    text, counts) is kept without looking at each cell again."""
    if not rows:
        return []
    parse = _PLAIN_JSON.decode
    columns: list[Any] = list(zip(*rows, strict=True))
    for i, (name, column) in enumerate(zip(names, columns, strict=True)):
        if name in decoded:
            columns[i] = [None if c is None else parse(c) for c in column]
        elif not (types := set(map(type, column))) <= _KEPT:
            (kind, *others) = types - {type(None)}
            convert = None if others else _CELLS.get(kind)
            if convert is None:  # mixed kinds, or one `plain` walks: a cell at a time
                columns[i] = list(map(_cell, column))
            else:  # one kind of cell (times, confidences) and nulls: converted directly
                columns[i] = [None if c is None else convert(c) for c in column]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def _rejections(ws: _Workspace, addr: Address) -> list[dict[str, Any]]:
    names, rows = ws.rows(queries.REJECTIONS, [addr.tenant, addr.scope, addr.subject])
    return [dict(zip(names, row, strict=True)) for row in rows]


def _inputs(ws: _Workspace, subject: str | None, show: bool = False) -> Any:
    addr = ws.address(subject)
    hidden = set() if show else quarantined_ids(_rejections(ws, addr))
    names, rows = ws.rows(
        queries.INPUTS.format(columns="*"), [addr.tenant, addr.scope, addr.subject]
    )
    out = _plain_rows(names, rows)
    for item in out:
        if item["id"] in hidden:
            item["content"] = QUARANTINED
    return out


def _rejections_verb(ws: _Workspace, subject: str | None, show: bool = False) -> Any:
    if show:
        return None  # an operator's audit: the secret filter masks the excerpts
    return plain(marked(_rejections(ws, ws.address(subject))))


def _subjects(ws: _Workspace, subject: str | None) -> Any:
    check_name("tenant", ws.tenant)
    rows = ws.con.execute(queries.SUBJECTS, [ws.tenant, ws.tenant]).fetchall()
    return [
        {
            "tenant": ws.tenant,
            "scope": scope,
            "subject": name,
            "facts": facts,
            "inputs": inputs,
            "last_recorded_at": plain(last),
        }
        for scope, name, facts, inputs, last in rows
    ]


def _erasures(ws: _Workspace, subject: str | None) -> Any:
    sql, params = queries.ERASURES, []
    if subject is not None:
        addr = ws.address(subject)
        sql, params = sql + queries.ERASURES_OF, [addr.tenant, addr.scope, addr.subject]
    else:
        check_name("tenant", ws.tenant)
    rows = ws.con.execute(sql + queries.ERASURES_ORDER, params).fetchall()
    reports = [json.loads(r[0]) for r in rows]
    if subject is None:
        reports = [r for r in reports if r.get("tenant") == ws.tenant]
    return plain(reports)


def _listing(kind: Kind) -> Callable[..., Any]:
    def listing(
        ws: _Workspace,
        subject: str | None,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> Any:
        from uac.checks import listing as alerts

        statuses = (*alerts.ACTIVE, "resolved") if include_resolved else alerts.ACTIVE
        where: Address | str = ws.address(subject) if subject is not None else ws.tenant
        if subject is None:
            check_name("tenant", ws.tenant)
        found = alerts.listed(ws.con, where, statuses=statuses, today=today, kind=kind)
        return [a.as_dict() for a in found]

    return listing


def _manifest(ws: _Workspace, subject: str | None) -> Any:
    return {"manifest": ws.checked(ws.address(subject)).manifest}


def _facts_by_id(ws: _Workspace, addr: Address, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The subject's facts with these ids, by id, in one statement."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    names, rows = ws.rows(
        queries.FACTS.format(columns="*") + f" AND id IN ({marks})",
        [addr.tenant, addr.scope, addr.subject, 0, *ids],
    )
    return {f["id"]: f for f in _plain_rows(names, rows, decoded=("value", "evidence"))}


def _the_facts(ws: _Workspace, where: list[tuple[Address, str]]) -> list[dict[str, Any]]:
    """The facts named by (subject, id), in that order (a statement per subject); the first
    one missing is refused as `Store.fact` refuses it."""
    found: dict[tuple[Address, str], dict[str, Any]] = {}
    for addr in dict.fromkeys(a for a, _ in where):
        ids = list(dict.fromkeys(fid for a, fid in where if a == addr))
        found.update(((addr, fid), f) for fid, f in _facts_by_id(ws, addr, ids).items())
    for addr, fid in where:
        if (addr, fid) not in found:
            raise NotFound(f"subject {addr} has no fact {fid!r}")
    return [dict(found[key]) for key in where]


def _why(ws: _Workspace, subject: str | None, expr: str) -> Any:
    from uac.compiler import explain

    if not isinstance(expr, str) or len(expr) > 500:
        return None  # the verb's validation says what is wrong with it
    addr = ws.address(subject)
    version = ws.served(addr)  # refused as the verb refuses it, before any of its code runs
    # `resolve` reads only the part of `user` the expression starts with: the records of
    # every other collection stay unexecuted (an empty tuple; their files are verified all
    # the same). A path it cannot parse loads everything, and `resolve` says what is wrong.
    text = expr.strip()
    first = explain.first_part(text if text.startswith("user") else "user." + text)
    ckpt = loader.load(ws.home, addr, version, only=None if first is None else {first})
    resolved = explain.resolve(ckpt, expr)
    provenance = ckpt.provenance
    scopes = provenance.get("scopes", {})  # an inherited value's facts: its group's or tenant's

    def where(fid: str) -> tuple[Address, str]:
        return (ws.address(scopes[fid]) if fid in scopes else addr, fid)

    named = [*resolved.fact_ids, *explain.superseded_by(ckpt, resolved.fact_ids)]
    found = _the_facts(ws, [where(fid) for fid in named])
    facts, older = found[: len(resolved.fact_ids)], found[len(resolved.fact_ids) :]
    wanted = {f["id"] for f in found}
    return {
        "expr": resolved.expr,
        "value": plain(resolved.value),
        "version": ckpt.version,
        "facts": facts,
        "superseded": older,
        "statuses": plain({k: v for k, v in provenance["facts"].items() if k in wanted}),
        "scopes": {f["id"]: str(Address(f["tenant"], f["scope"], f["subject"])) for f in found},
    }


def _diff(ws: _Workspace, subject: str | None, v1: int | None = None, v2: int | None = None) -> Any:
    from uac.compiler import explain

    if any(v is not None and (type(v) is not int or v < 1) for v in (v1, v2)):
        return None  # the verb's validation says what is wrong with it
    addr = ws.address(subject)
    old, new = v1, v2
    rows = ws.con.execute(
        f"SELECT version, status FROM checkpoints WHERE {queries.SUBJECT} ORDER BY id",
        [addr.tenant, addr.scope, addr.subject],
    ).fetchall()
    published = [version for version, status in rows if status == "published"]
    old, new = loader.diff_versions(ws.home, addr, published, old, new)
    changes = explain.diff(loader.load(ws.home, addr, old), loader.load(ws.home, addr, new))
    return {"old": old, "new": new, "changes": changes}


def _verify(ws: _Workspace, subject: str | None) -> Any:
    """The whole log verified as the store verifies it (an exported anchor to hold it to
    takes the verb: its validation reads the file's fields)."""
    # Every sealed table's declaration, as the store, the compiler and the checks declare
    # them: a table whose seal this process never heard of would go unchecked.
    from uac.checks import schema  # noqa: F401 (alerts)
    from uac.compiler import checkpoint_seal  # noqa: F401
    from uac.fact_log import log_seals  # noqa: F401 (inputs, rejections, schemas, erasures)
    from uac.fact_log.chain_rows import FACT_COLUMNS
    from uac.fact_log.file_verify import verify_file

    columns = ", ".join(name for name, _, _ in FACT_COLUMNS)  # the store's, keyed digests too
    return plain(verify_file(ws.con, ws.ring, ws.home, columns, CHUNK, None, ws.meta))


def _recall(name: str) -> Callable[..., Any]:
    def verb(ws: _Workspace, subject: str | None, **params: Any) -> Any:
        from uac.runtime.api import lean_recall  # the search index's read half: on use

        return getattr(lean_recall, name)(ws, subject, **params)

    return verb


CHUNK = 20_000  # rows fetched at a time by the walk (fact_log/reads.py `verify`)
# verb -> (what answers it, the arguments it takes)
VERBS: dict[str, tuple[Callable[..., Any], frozenset[str]]] = {
    "facts": (_facts, frozenset({"path"})),
    "inputs": (_inputs, frozenset({"show"})),
    "rejections": (_rejections_verb, frozenset({"show"})),
    "subjects": (_subjects, frozenset()),
    "erasures": (_erasures, frozenset()),
    "alerts": (_listing("alert"), frozenset({"include_resolved", "today"})),
    "questions": (_listing("question"), frozenset({"include_resolved", "today"})),
    "manifest": (_manifest, frozenset()),
    "why": (_why, frozenset({"expr"})),
    "diff": (_diff, frozenset({"v1", "v2"})),
    "verify": (_verify, frozenset()),
    "search": (_recall("search"), frozenset({"text", "k", "kind", "today", "neighbours"})),
    "context": (_recall("context"), frozenset({"query", "budget", "today", "notes"})),
}
# Verbs that read the log itself on every call: a search ranks over the index's tables with
# the engine's own functions (stemming), and `verify` vouches for the bytes the file holds now
# (an integrity check answered from rows kept earlier would not see a change that leaves the
# file's size and times alone, such as a bad block). The others' statements may be answered
# from rows kept by an earlier look while the log is unchanged (read_cache.py).
UNCACHED = frozenset({"search", "verify"})


def _engine_errors() -> tuple[type[BaseException], ...]:
    """DuckDB's errors, if its engine was loaded (a look the cache answered never loads it)."""
    duck = sys.modules.get("uac.fact_log.duck")
    return () if duck is None else (duck.duckdb.Error,)


def answer(
    home: Path,
    tenant: str,
    verb: str,
    subject: str | None,
    params: dict[str, Any],
    held: list[Any] | None = None,
) -> Any | None:
    """The verb's plain-JSON answer read straight from the workspace, or None: run the full
    verb (see the module's docstring for when).

    `held`: a caller that ends its process right after the answer (the CLI) passes a list,
    and the read-only look the answer came from goes into it still open instead of being
    closed: DuckDB's close takes its engine down (~2 ms of a `uac verify`), which the end
    of the process does anyway. Without an answer it is closed (the full verb opens the file)."""
    found = VERBS.get(verb)
    if found is None or not set(params) <= found[1]:
        return None
    db = Path(home).expanduser() / DB_FILE
    if not db.is_file():
        return None
    cache = verb not in UNCACHED
    try:
        return _answer(db, tenant, verb, subject, params, cache, held)
    except Changed:  # written to while it looked: the log alone answers
        return _answer(db, tenant, verb, subject, params, False, held)


def _connect(db: Path) -> Any:
    from uac.fact_log import duck  # DuckDB's engine: only when the cache cannot answer

    # A held lock raises WorkspaceInUse, as Memory's open does; a few short statements: one thread.
    return duck.connect(db, read_only=True, threads=1)


def _answer(
    db: Path,
    tenant: str,
    verb: str,
    subject: str | None,
    params: dict[str, Any],
    cache: bool,
    held: list[Any] | None,
) -> Any | None:
    try:  # the ring the cache's entries are signed with (a bad key file fails below)
        signing = KeyRing.load(db.parent) if cache else None
    except WorkspaceError:
        signing = None
    con = CachedLog(db.parent, signing, lambda: _connect(db), cache=cache)
    if not cache:
        con.connection()  # opened first, as before: a held lock says so at once
    answered = None
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        if BOUND in meta:  # the full open follows: it need not look before opening writable
            _remember_bound(db)
            return None
        if any(meta.get(key) != version for key, version in VERSIONS.items()):
            return None
        # The key ring as the store's open loads it: a corrupt key file fails alike.
        ring = KeyRing.load(db.parent)
        ws = _Workspace(db.parent, tenant, con, ring, meta)
        answered = VERBS[verb][0](ws, subject, **params)
        return answered
    except _engine_errors():
        return None  # a table this uac does not know: the full open says why
    finally:
        if answered is not None and held is not None:
            held.append(con)  # the caller's process ends next: it releases the file
        else:
            con.close()


def _remember_bound(db: Path) -> None:
    from uac.fact_log import duck

    duck.remember_bound(db)
