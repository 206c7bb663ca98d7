"""An overlay: a subject's typed state as it would be after a proposed write, in memory.

`preview` (runtime/api/preview.py) asks "what would this write change?" without writing.
The answer must come from the same code a write goes through, so an overlay is the compile
of the subject with the proposal added, minus everything that touches the disk:

- the proposal's batches are chained by the log's own `prepare` (its validation, its row
  layout) against a throwaway key and no stored head: nothing is read from or written to the
  log, and the rows become `Fact`s that follow everything the subject's compile reads
  (`checkpoint.subject_facts`), as the write's rows would;
- the fold is the compiler's `fold` (its memo is read, never kept: the next real compile
  must not start from a state that was never written);
- the rendered modules are executed from memory as one package (not formatted: ruff only
  changes layout), so the checks run on the same generated dataclasses and generated rule
  functions a published checkpoint holds. Nothing lands under generated/.

Incremental like a compile: a collection whose records (and record class) are those the
subject's previous preview built, under the same schema module, is neither rendered nor
decoded again: its module is carried (compiler/cache.py keeps them per subject, and a legal
erase drops them with the rest of the subject's cache). A subject's first preview carries
them from its current checkpoint instead, when this process has imported it already (a
write's reaction does) and its files.json says they are the same.

The package lives in `sys.modules` only while it is executed (its relative imports resolve
there); the objects it made stay alive as long as the overlay does.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from types import ModuleType
from typing import Any

from uac.compiler import cache
from uac.compiler.canonical import rows_digest
from uac.compiler.checkpoint import subject_facts
from uac.compiler.fold import FoldResult, fold
from uac.compiler.gc_pause import cyclic_gc_paused
from uac.compiler.loader import COLUMNS, current_version, imported
from uac.compiler.model import build_model, model_parts
from uac.compiler.render import records_files, records_format, render
from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.chain import GENESIS, Batch, prepare
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.errors import UacError
from uac.fact_log.store import Fact, Store

# Proposed rows are never stored, so their keyed digests need no secret: a fixed key keeps
# a preview independent of the workspace key (a read-only open may hold none).
_THROWAWAY = KeyRing(Path(), "preview", {"preview": bytes(32)})
PROPOSED = "proposed-"  # the prefix of a proposed fact's id: no stored fact has one

# Modules execute in dependency order: each imports only modules before it.
_ORDER = (COLUMNS, "schema")
_NAMES = itertools.count(1)
_NAMES_LOCK = threading.Lock()


@dataclass(slots=True)
class Overlay:
    """The typed state of a subject with a proposal applied, held in memory.

    Quacks like a loaded `Checkpoint` where the checks and `why` look (`user`, `package`,
    `provenance`, `version`), so they run on it unchanged.
    """

    address: Address
    version: int  # the published checkpoint it was read beside (0: none yet)
    package: ModuleType
    provenance: dict[str, Any]
    folded: FoldResult
    proposed: list[Fact] = field(default_factory=list)

    @property
    def user(self) -> Any:
        """The root typed object, as a checkpoint's `state.user`."""
        return self.package.state.user


def proposed_facts(batches: Sequence[Batch]) -> list[Fact]:
    """The facts the batches would append, as rows (ids `proposed-N`, in batch order).

    Chained by the log's `prepare`, so a value the log would refuse is refused here too.
    Seqs are provisional: the overlay renumbers them past the subject's log.
    """
    out: list[Fact] = []
    for batch in batches:
        prep = prepare(batch, _THROWAWAY, (0, GENESIS), itertools.count(1), itertools.count(1), 1)
        for row in prep.fact_rows:
            fact = Fact(*row)
            out.append(replace(fact, id=f"{PROPOSED}{len(out) + 1}", mac=None))
    return out


def build_overlay(
    store: Store,
    catalog: Catalog,
    addr: Address,
    batches: Sequence[Batch],
) -> Overlay:
    """Fold the subject's log plus the batches and import the result from memory."""
    proposed = proposed_facts(batches)
    facts, shared = subject_facts(store, catalog, addr, proposed=proposed)
    schemas = dict(store.inferred_schemas(addr))
    for batch in batches:  # an import of a new collection infers (or widens) its schema
        schemas.update(batch.schemas)
    model = build_model(catalog, schemas)
    with cyclic_gc_paused():
        folded = fold(catalog, model, facts, cache.fold_memo(store, addr), shared.scopes)
        parts = model_parts(model)
        keys = {
            c.module: rows_digest(
                (c.class_name, tuple(f.name for f in c.fields), parts[c.attr], records_format())
            )
            for c in model.collections
            if c.records
        }
        attrs = {c.module: c.attr for c in model.collections}
        files = render(folded, str(addr), addr.tenant, skip=set(attrs.values()), digests=parts)
        schema = hashlib.sha256(files["schema.py"].encode("utf-8")).hexdigest()
        carry = _carried(cache.preview_modules(store, addr), schema, keys)
        if not carry:  # a first preview: the published checkpoint, if imported already
            carry = _published(store, addr, schema, keys)
        needed = {attrs[m] for m in keys if m not in carry}
        files.update(records_files(folded, str(addr), addr.tenant, needed))
        package = import_rendered(files, carry)
    held = {m: getattr(package, m) for m in (COLUMNS, "schema", *keys)}
    cache.keep_preview_modules(store, addr, _Kept(schema, keys, held))
    return Overlay(
        addr,
        current_version(store.home, addr) or 0,
        package,
        json.loads(files["provenance.json"]),
        folded,
        facts[len(facts) - len(proposed) :],
    )


@dataclass(frozen=True, slots=True)
class _Kept:
    """A preview's schema and records modules, for the subject's next preview."""

    schema: str  # digest of schema.py's text
    keys: dict[str, str]  # records module -> digest of its class and rows
    modules: dict[str, ModuleType]


def _carried(kept: _Kept | None, schema: str, keys: dict[str, str]) -> dict[str, ModuleType]:
    """The modules of the last preview this one can take as they are (none if the schema
    changed: a records module is only good with the classes it was built from)."""
    if kept is None or kept.schema != schema:
        return {}
    out = {COLUMNS: kept.modules[COLUMNS], "schema": kept.modules["schema"]}
    for module, key in keys.items():
        if kept.keys.get(module) == key:
            out[module] = kept.modules[module]
    return out


def _published(
    store: Store, addr: Address, schema: str, keys: dict[str, str]
) -> dict[str, ModuleType]:
    """The modules of the subject's current checkpoint this preview can take as they are:
    only if this process imported it already (nothing is read but its files.json), and only
    under the same schema text (files.json's `preformat`: digests before ruff formatted)."""
    found = imported(store.home, addr)
    if found is None:
        return {}
    package, meta = found
    if meta.get("preformat", {}).get("schema.py") != schema:
        return {}
    # Not its `_columns`: that one reads files from disk; this preview's reads from memory.
    out = {"schema": package.schema}
    reuse = meta.get("reuse", {})
    for module, key in keys.items():
        attr = module.removeprefix("records_")
        if reuse.get(attr) == key and isinstance(getattr(package, module, None), ModuleType):
            out[module] = getattr(package, module)
    return out


def import_rendered(
    files: Mapping[str, str], carry: Mapping[str, ModuleType] | None = None
) -> ModuleType:
    """Execute a rendered checkpoint (file name -> text) as a package, from memory.

    `carry` gives modules (by name) taken as they are instead of executed (their files
    need not be in `files`).
    """
    carry = carry or {}
    with _NAMES_LOCK:
        name = f"uac_overlay_{next(_NAMES)}"
    modules = [m[:-3] for m in files if m.endswith(".py") and m != "__init__.py"]
    modules += [m for m in carry if f"{m}.py" not in files]
    records = sorted(m for m in modules if m.startswith("records_"))
    order = [*_ORDER, *records, *sorted(set(modules) - {*_ORDER, *records})]
    package = ModuleType(name)
    package.__path__ = []  # a package: its submodules are the ones registered below
    package.__package__ = name
    made = [name]
    sys.modules[name] = package
    _BEING_BUILT[name] = files
    try:
        _execute(package, files["__init__.py"], f"<overlay {name}/__init__.py>")
        for module in order:
            if module in carry:
                sys.modules[f"{name}.{module}"] = carry[module]
                made.append(f"{name}.{module}")
                setattr(package, module, carry[module])
                continue
            sub = ModuleType(f"{name}.{module}")
            sub.__package__ = name
            sub.__file__ = f"{name}/{module}.py"  # what a records module hands `_columns.load`
            sys.modules[sub.__name__] = sub
            made.append(sub.__name__)
            _execute(sub, files[f"{module}.py"], f"<overlay {name}/{module}.py>")
            if module == COLUMNS:
                sub.read = _rendered  # type: ignore[attr-defined]
            setattr(package, module, sub)
    except Exception as exc:
        raise UacError(f"the proposal's typed state failed to build: {exc}") from None
    finally:
        _BEING_BUILT.pop(name, None)
        for module in made:
            sys.modules.pop(module, None)
    return package


# The files of each package being built, by package name: a `_columns` module carried from
# an earlier preview reads the records of the package that imports it now.
_BEING_BUILT: dict[str, Mapping[str, str]] = {}


def _rendered(path: str) -> str:
    """`_columns.read`'s stand-in: the rendered text of `<package>/<file>`, a file being built."""
    where = PurePath(path)
    return _BEING_BUILT[where.parent.name][where.name]


def _execute(module: ModuleType, text: str, origin: str) -> None:
    exec(compile(text, origin, "exec"), module.__dict__)
