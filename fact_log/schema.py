"""One schema mechanism for the workspace file: each layer owns and migrates its own tables.

An `Owner` ("fact_log", "llm", "compiler", "checks", "search") lists ordered migration
steps: `steps[i]` takes its tables from version i to i+1. The layer that owns the tables
declares them next to the code that reads them and `register`s them when imported, so this
module (the lowest layer) never imports a higher one; `Store.open` migrates every registered
owner (plus any the opener passes in), lower layers first, all pending steps in ONE
transaction: a failed step leaves the file as it was.

Each owner's version is one row of the `meta` table: `schema_version` for fact_log (the key
every uac version has read, so older binaries still recognise the workspace) and
`schema_version.<owner>` for the others.

Upgrading in place: before owners had their own versions, fact_log's steps 2 and 3 created
the compiler's `checkpoints` and the checks' `alerts` and `jobs`; those steps are empty now
and `LEGACY` says which fact_log version implied each owner's version 1. A fact_log version
below `SPLIT_AT` predates per-owner rows, so those owners' versions are derived from it. Tables
that older code created lazily (`llm_usage`, `search_*`) are adopted by first steps written
with IF NOT EXISTS.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from uac.fact_log.errors import WorkspaceError
from uac.fact_log.rwlock import Connection

if TYPE_CHECKING:
    import duckdb
else:  # the engine the package re-exports, without its __init__ (fact_log/duck.py)
    from uac.fact_log.duck import duckdb

META_DDL = "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)"
SPLIT_AT = 3  # the fact_log version from which other owners record their own versions
LEGACY = {"compiler": 2, "checks": 3}  # owner -> fact_log version that created its tables


@dataclass(frozen=True, slots=True)
class Owner:
    """A layer's tables: ordered migration steps (SQL statements), applied lowest layer first."""

    name: str
    layer: int  # 0 fact_log, 1 compiler, 2 checks, 3 runtime: the order owners migrate in
    steps: tuple[tuple[str, ...], ...]

    @property
    def version(self) -> int:
        """The version this code writes: one per step."""
        return len(self.steps)

    @property
    def meta_key(self) -> str:
        """The `meta` row holding this owner's version."""
        return "schema_version" if self.name == "fact_log" else f"schema_version.{self.name}"


_REGISTRY: dict[str, Owner] = {}


def register(owner: Owner) -> Owner:
    """Make Store.open migrate this owner's tables; returns it (for a module constant)."""
    known = _REGISTRY.get(owner.name)
    if known is not None and known != owner:
        raise ValueError(f"two different schemas registered for owner {owner.name!r}")
    _REGISTRY[owner.name] = owner
    return owner


def registered() -> list[Owner]:
    """The registered owners in migration order."""
    return _ordered(_REGISTRY.values())


def _ordered(owners: Iterable[Owner]) -> list[Owner]:
    return sorted({o.name: o for o in owners}.values(), key=lambda o: (o.layer, o.name))


def versions(con: Connection, owners: Iterable[Owner]) -> dict[str, int]:
    """Each owner's version as recorded in the file (0: none of its tables yet)."""
    has_meta = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'meta'"
    ).fetchone()
    rows: dict[str, str] = {}
    if has_meta and has_meta[0]:
        rows = dict(con.execute("SELECT key, value FROM meta").fetchall())
    base = int(rows.get("schema_version", 0))
    out: dict[str, int] = {}
    for owner in owners:
        if owner.name == "fact_log":
            out[owner.name] = base
        elif owner.name in LEGACY and (base < SPLIT_AT or owner.meta_key not in rows):
            out[owner.name] = 1 if base >= LEGACY[owner.name] else 0
        else:
            out[owner.name] = int(rows.get(owner.meta_key, 0))
    return out


def migrate(con: Connection, owners: Sequence[Owner], *, allow: bool, where: str) -> dict[str, int]:
    """Bring every owner's tables to its version in one transaction; returns the versions.

    With allow=False (a read-only open) nothing is written: a fact_log behind is refused
    with the command that upgrades it; other owners behind wait for the next writable open
    (their readers treat a missing table as empty).
    """
    owners = _ordered(owners)
    found = versions(con, owners)
    for owner in owners:
        if found[owner.name] > owner.version:
            what = "schema" if owner.name == "fact_log" else f"{owner.name} schema"
            raise WorkspaceError(
                f"workspace {where} has {what} version {found[owner.name]}, newer than this "
                f"uac supports ({owner.version}); upgrade uac"
            )
    pending = [o for o in owners if found[o.name] < o.version]
    if not pending:
        return found
    if not allow:
        fact_log = next((o for o in pending if o.name == "fact_log"), None)
        if fact_log is not None:
            raise WorkspaceError(
                f"workspace {where} has schema version {found['fact_log']}; "
                f"run 'uac --home {where} init' to upgrade it to {fact_log.version}"
            )
        return found
    con.execute("BEGIN")
    try:
        con.execute(META_DDL)
        for owner in pending:
            for number in range(found[owner.name] + 1, owner.version + 1):
                step = owner.steps[number - 1]
                try:
                    if step:  # one execute per step: each statement alone costs a round trip
                        con.execute(";\n".join(step))
                except duckdb.Error as exc:
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else "error"
                    raise WorkspaceError(
                        f"workspace {where}: migrating the {owner.name} tables to version "
                        f"{number} failed, so nothing was changed: {first}"
                    ) from None
        # Every owner's row is written, so a legacy workspace gets its per-owner rows too.
        con.execute(
            "INSERT OR REPLACE INTO meta VALUES " + ", ".join(["(?, ?)"] * len(owners)),
            [v for o in owners for v in (o.meta_key, str(o.version))],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {o.name: o.version for o in owners}


def forget(con: Connection, owner: Owner) -> None:
    """Record that an owner's tables are gone (it dropped them to rebuild derived data)."""
    con.execute("DELETE FROM meta WHERE key = ?", [owner.meta_key])
