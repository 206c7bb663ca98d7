"""A local search or context answered without `Memory` (runtime/api/lean_recall.py) answers
exactly as the verb does, for one tenant and subject only, and steps aside where it cannot.

Each lean answer is compared, as JSON text, with `verbs.run` on a writable `Memory` (what
the CLI opens for these verbs) over a workspace of two tenants, users, a group, notes,
messages, a quarantined input, preferences said and inferred, a soft preference, an episode,
a task, alerts and questions. A search whose index is behind the log, was built by another
embedder or layout, a context for a query, a workspace catalog file or a workspace bound to
PostgreSQL leaves the call to the verb. A query's vector read back from the workspace's
cache is the encoder's own.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from uac import Memory
from uac.fact_log.errors import UacError
from uac.runtime.api import lean_reads, lean_recall, verbs

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.duckdb_only(
        "the lean reads serve the embedded file; a PostgreSQL-bound workspace takes the verb "
        "(test_what_the_lean_path_does_not_know_takes_the_verb)"
    ),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the encoder's name and the catalog alone: no log")

T0 = dt.datetime(2026, 3, 1, 9, 0)
TODAY = dt.date(2026, 3, 2)
# Words only bob's notes (and the other tenant's alice's) hold: alice's answers never show them.
BOB_WORD = "kayak"
OTHER_WORD = "zeppelin"
BAD_NAME = "Not A Subject!"
# carol's notes outnumber a search's dense depth (100), so both scans keep only the
# candidates that can reach it (runtime/search/cosines.py); some are the same sentence
# (exact ties: same vector, same date) or nearly (near ties).
FERRY = "The harbour ferry leaves at nine."
CAROL = [
    *(f"Harbour log {i}: the ferry left pier {i % 7} at {i % 12} o'clock." for i in range(110)),
    *(FERRY for _ in range(3)),
    FERRY.rstrip("."),
    FERRY.replace("nine", "nine,"),
    "the harbour ferry leaves at nine.",
]
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("search", "alice", {"text": "passport appointment"}),
    ("search", "alice", {"text": "where did I move?", "k": 3}),
    ("search", "alice", {"text": "consulate", "kind": "note", "today": TODAY}),
    ("search", "alice", {"text": "lunch", "kind": "input", "neighbours": 2}),
    ("search", "alice", {"text": "in March 2026 lunch", "today": TODAY, "neighbours": 0}),
    ("search", "alice", {"text": BOB_WORD}),
    ("search", "alice", {"text": OTHER_WORD}),
    ("search", "alice", {"text": "   "}),  # refused alike
    ("search", "bob", {"text": BOB_WORD}),
    ("search", "group:family", {"text": "holiday"}),
    ("search", "carol", {"text": "when does the harbour ferry leave?"}),
    ("search", "carol", {"text": "ferry pier", "k": 60, "neighbours": 0}),
    ("search", "carol", {"text": "qwzx vbnm"}),  # no word known: the dense list decides
    ("search", "carol", {"text": "harbour", "kind": "note", "k": 200}),
    ("search", "carol", {"text": FERRY, "k": 8}),
    ("search", "carol", {"text": "ferry in March 2026", "today": TODAY, "kind": "note"}),
    ("search", "carol", {"text": "ferry yesterday", "today": TODAY, "neighbours": 1}),
    ("search", "nobody", {"text": "passport"}),
    ("search", BAD_NAME, {"text": "passport"}),  # refused alike
    ("context", "alice", {}),
    ("context", "alice", {"budget": 60, "today": TODAY}),
    ("context", "alice", {"today": dt.date(2027, 6, 1), "notes": 0}),
    ("context", "bob", {"today": TODAY}),
    ("context", "group:family", {}),
    ("context", "nobody", {}),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tenants' subjects with notes, messages, preferences, an episode, a task and
    alerts; the search index synced (a writable search), as after any `uac search`."""
    home = tmp_path_factory.mktemp("recall") / "ws"
    hour = dt.timedelta(hours=1)
    with Memory(home, create=True) as mem:  # reacting: each write compiles and checks
        mem.set("alice", "identity.passport.expiry_date", "2026-04-01", now=T0)
        mem.add("alice", "I moved to Lisbon last week.", now=T0 + hour)
        mem.add("alice", "I paid 12.50 EUR for lunch today.", now=T0 + 2 * hour)
        mem.add("alice", "使用中文回答", now=T0 + 3 * hour)  # inferred once: a question
        task = {
            "goal": "Move to Lisbon",
            "steps": ["visa form", "bank letter"],
            "due_date": "2026-03-20",
        }
        mem.import_records("alice", "tasks", [task], now=T0)
        mem.add("alice", "done with the visa form, next is the bank letter", now=T0 + 5 * hour)
        mem.add("alice", "My password is hunter2", now=T0 + 4 * hour)  # quarantined
        mem.remember("alice", "My passport renewal appointment is at the consulate", now=T0)
        mem.remember("alice", "Lunch with Ana on Fridays near the office", now=T0 + hour)
        mem.set("alice", "preferences.format", "bullets", now=T0)
        mem.prefer("alice", "When suggesting trains, list the travel time first.", now=T0)
        mem.add_episode("alice", "VPN fails at the office", worked="reinstall the profile", now=T0)
        rule = {"type": "reminder", "path": "passport.expiry_date", "days_before": 60}
        mem.add_rule("alice", rule, now=T0)
        mem.member_add("group:family", "alice", now=T0)
        mem.remember("group:family", "The family holiday is booked for August", now=T0)
        mem.remember("bob", f"Bob keeps his {BOB_WORD} at the lake house", now=T0)
        mem.set("bob", "preferences.language", "fr", now=T0)
    with Memory(home, react=False) as mem:
        for i, text in enumerate(CAROL):
            mem.remember("carol", text, now=T0 + dt.timedelta(minutes=i % 100))
        mem.search("alice", "sync the index")  # a writable search indexes the whole log
    with Memory(home, "other") as mem:
        mem.remember("alice", f"Alice of the other tenant flew in a {OTHER_WORD}", now=T0)
        mem.search("alice", "sync the index")
    return home


def _outcome(call: Any, *args: Any) -> tuple[str, str]:
    """What a call answered (as JSON text) or the error it raised (its type and message)."""
    try:
        return "answer", json.dumps(call(*args))
    except UacError as exc:
        return type(exc).__name__, str(exc)


def _verb(home: Path, tenant: str, verb: str, subject: str, params: dict[str, Any]) -> Any:
    with Memory(home, tenant, react=False) as mem:  # what the CLI opens for these verbs
        return verbs.run(mem, verb, subject, params)


def _copy(workspace: Path, tmp_path: Path, sql: str | None = None) -> Path:
    """A copy of the workspace, `sql` run on its file (an edit outside uac)."""
    shutil.copytree(workspace, tmp_path / "ws")
    if sql is not None:
        with duckdb.connect(str(tmp_path / "ws" / "uac.duckdb")) as con:
            con.execute(sql)
    return tmp_path / "ws"


def _lean(home: Path, tenant: str, verb: str, subject: str, params: dict[str, Any]) -> Any:
    answer = lean_reads.answer(home, tenant, verb, subject, params)
    assert answer is not None, (verb, subject, params)
    return answer


@pytest.mark.parametrize("tenant", ["default", "other"])
def test_the_lean_search_and_context_answer_as_the_verbs(workspace: Path, tenant: str) -> None:
    leans = [_outcome(lean_reads.answer, workspace, tenant, *call) for call in CALLS]
    # The verbs' answers through one open workspace (as `uac serve` answers them), not one
    # open per call: opening and closing the file was nearly half the verbs' time here.
    with Memory(workspace, tenant, react=False) as mem:
        fulls = [_outcome(verbs.run, mem, *call) for call in CALLS]
    shown = 0
    for call, lean, full in zip(CALLS, leans, fulls, strict=True):
        assert lean[1] != "null", call  # answered, not left to the verb
        assert lean == full, call
        # Asked again: the query's vector read from the workspace's cache.
        again = _outcome(lean_reads.answer, workspace, tenant, *call)
        assert again == full, call
        shown += lean[0] == "answer" and lean[1] not in ("[]", "{}")
    # Comparing empty answers proves little: most of the default tenant's calls show something.
    assert shown >= (12 if tenant == "default" else 5)


def _ids(hits: list[dict[str, Any]]) -> set[str]:
    return {h["id"] for h in hits} | {n["id"] for h in hits for n in h.get("neighbours") or ()}


def test_a_lean_read_for_one_subject_never_shows_anothers_notes(workspace: Path) -> None:
    with Memory(workspace, read_only=True) as mem:
        own = {f.id for f in mem.facts("alice")} | {i.id for i in mem.inputs("alice")}
    for words in ("passport", BOB_WORD, OTHER_WORD, "lake house", "holiday August", "lunch"):
        hits = _lean(workspace, "default", "search", "alice", {"text": words, "k": 50})
        assert _ids(hits) <= own, words
        assert BOB_WORD not in json.dumps(hits) and OTHER_WORD not in json.dumps(hits)
    bob = _lean(workspace, "default", "search", "bob", {"text": BOB_WORD})
    assert [BOB_WORD in h["text"] for h in bob] == [True]  # the check above can fail
    other = _lean(workspace, "other", "search", "alice", {"text": OTHER_WORD})
    assert [OTHER_WORD in h["text"] for h in other] == [True]
    block = _lean(workspace, "default", "context", "alice", {"budget": 5000})["context"]
    assert BOB_WORD not in block and OTHER_WORD not in block and "fr" not in block.split()
    assert "Lisbon" not in _lean(workspace, "other", "context", "alice", {})["context"]


def test_what_the_comparison_covers_is_there(workspace: Path) -> None:
    block = _lean(workspace, "default", "context", "alice", {"budget": 5000, "today": TODAY})
    text = block["context"]
    parts = ("## How to answer", "## To confirm", "## Open alerts", "## Open tasks", "## Style")
    for part in parts:
        assert part in text, part
    hits = _lean(workspace, "default", "search", "alice", {"text": "lunch", "neighbours": 2})
    assert {h["kind"] for h in hits} == {"note", "input"} and any(h["neighbours"] for h in hits)
    assert any(h["vector_rank"] for h in hits) and any(h["bm25_rank"] for h in hits)


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO meta VALUES ('log_url', 'postgresql://db.example/uac')",
        "UPDATE meta SET value = '9' WHERE key = 'schema_version.search'",
        "UPDATE search_meta SET value = 'hashing-v1-256|256' WHERE key = 'embedder'",
        "UPDATE search_meta SET value = '4' WHERE key = 'layout'",
        "UPDATE search_meta SET value = '2' WHERE key = 'unembedded'",
        "UPDATE search_meta SET value = '1' WHERE key = 'input_seq'",
    ],
)
def test_what_the_lean_path_does_not_know_takes_the_verb(
    workspace: Path, tmp_path: Path, sql: str
) -> None:
    home = _copy(workspace, tmp_path, sql)
    searches = [c for c in CALLS if c[0] == "search"]
    calls = CALLS if "INTO meta" in sql or "schema_version" in sql else searches
    for verb, subject, params in calls:
        if subject == BAD_NAME:  # refused alike, before the index is looked at
            continue
        assert lean_reads.answer(home, "default", verb, subject, params) is None, (sql, verb)


def test_a_search_behind_the_log_takes_the_verb_until_it_is_indexed(
    workspace: Path, tmp_path: Path
) -> None:
    home = _copy(workspace, tmp_path)
    call = ("default", "search", "alice", {"text": "glacier"})
    assert not any("glacier" in h["text"] for h in _lean(home, *call))
    with Memory(home, react=False) as mem:
        mem.remember("alice", "We hiked the glacier trail in May", now=T0)
    assert lean_reads.answer(home, *call) is None  # the verb would index the new note first
    full = _verb(home, *call)
    assert full[0]["text"] == "We hiked the glacier trail in May"
    assert _lean(home, *call) == full  # indexed by that search: lean again


def test_options_the_lean_path_does_not_take_go_to_the_verb(workspace: Path) -> None:
    asks: list[tuple[str, dict[str, Any]]] = [
        ("search", {"text": "passport", "since": dt.datetime(2026, 1, 1)}),
        ("search", {"text": "passport", "k": 0}),
        ("search", {"text": "passport", "k": 201}),
        ("search", {"text": "passport", "kind": "fact"}),
        ("search", {"text": "x" * (lean_recall.MAX_TEXT + 1)}),
        ("search", {"text": "passport", "half_life_days": 30.0}),
        ("context", {"query": "book a train"}),
        ("context", {"budget": 19}),
        ("context", {"notes": 101}),
    ]
    for verb, params in asks:
        assert lean_reads.answer(workspace, "default", verb, "alice", params) is None, params


def test_a_workspace_catalog_file_takes_the_verb(workspace: Path, tmp_path: Path) -> None:
    home = _copy(workspace, tmp_path)
    (home / "catalog.toml").write_text('[hobbies]\ndescription = "pastimes"\n')
    assert lean_reads.answer(home, "default", "context", "alice", {}) is None
    assert _lean(home, "default", "search", "alice", {"text": "passport"})


def test_a_cached_query_vector_is_the_encoders_own(workspace: Path, tmp_path: Path) -> None:
    from uac.runtime.search.embedders import EncoderEmbedder

    home = _copy(workspace, tmp_path)
    cached = lean_recall._embedder(home)
    assert isinstance(cached, lean_recall.QueryVectors)
    folder = home / lean_recall.QUERY_CACHE
    shutil.rmtree(folder, ignore_errors=True)
    text = "does she mind connecting flights?"
    first = cached.embed([text])
    assert len(list(folder.glob("*.f32"))) == 1
    again = lean_recall._embedder(home).embed([text])  # a new process reads the file
    assert first == again == EncoderEmbedder().embed([text])
    (path,) = folder.glob("*.f32")
    path.write_bytes(b"\0" * 12)  # a cut file is not a vector: embedded again
    assert lean_recall._embedder(home).embed([text]) == first
    pair = [text, "trains"]  # a batch goes to the encoder, as the verb sends it
    assert cached.embed(pair) == EncoderEmbedder().embed(pair)
    assert len(list(folder.glob("*.f32"))) == 1


def test_processes_caching_the_same_queries_at_once_keep_the_encoders_vectors(
    workspace: Path, tmp_path: Path
) -> None:
    """Four processes embed the same queries at once (each writing every vector), one of them
    killed while it runs; every kept vector is then whole and the encoder's own."""
    import subprocess
    import sys

    from uac.runtime.search.embedders import EncoderEmbedder

    home = _copy(workspace, tmp_path)
    folder = home / lean_recall.QUERY_CACHE
    shutil.rmtree(folder, ignore_errors=True)  # other tests' queries, cached in the shared home
    texts = [f"trip number {n} to the coast" for n in range(6)]
    code = (
        "import sys; from pathlib import Path; from uac.runtime.api import lean_recall\n"
        "e = lean_recall._embedder(Path(sys.argv[1]))\n"
        f"for _ in range(3):\n    for t in {texts!r}: e.embed([t])\n"
    )
    runs = [subprocess.Popen([sys.executable, "-c", code, str(home)]) for _ in range(4)]
    runs[0].kill()  # mid-way, or before it wrote anything: either way the others carry on
    assert [r.wait(timeout=300) for r in runs[1:]] == [0, 0, 0]
    runs[0].wait(timeout=60)
    assert len(list(folder.glob("*.f32"))) == len(texts)
    cached = lean_recall._embedder(home)
    for text in texts:  # each kept file holds the encoder's vector, whole
        assert cached.embed([text]) == EncoderEmbedder().embed([text])


def test_an_erasure_drops_the_query_cache(workspace: Path, tmp_path: Path) -> None:
    home = _copy(workspace, tmp_path)
    _lean(home, "default", "search", "alice", {"text": "lunch in Lisbon"})
    folder = home / lean_recall.QUERY_CACHE
    assert list(folder.glob("*.f32"))
    with Memory(home) as mem:
        (fact,) = [f for f in mem.facts("alice") if f.path == "identity.passport.expiry_date"]
        mem.erase("alice", [fact.id], reason="asked by the user")
    assert not folder.exists()  # past queries' vectors are gone with the erased content
    # the next lean search answers again and keeps its vector anew
    _lean(home, "default", "search", "alice", {"text": "lunch in Lisbon"})
    assert list(folder.glob("*.f32"))


def test_both_paths_rescore_only_the_dense_candidates_and_keep_exact_ties(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from uac.runtime.search import cosines

    rescored: list[int] = []
    exact = cosines.listed

    def counting(query: Any, norm2: float, candidates: Any) -> Any:
        rescored.append(len(candidates))
        return exact(query, norm2, candidates)

    monkeypatch.setattr(cosines, "listed", counting)
    call = ("default", "search", "carol", {"text": "when does the harbour ferry leave?"})
    lean = _lean(workspace, *call)
    assert lean == _verb(workspace, *call)
    # carol's notes outnumber the depth: the lean scan and the verb's each kept fewer.
    assert len(rescored) == 2 and all(0 < n < len(CAROL) for n in rescored), rescored
    ties = _lean(workspace, "default", "search", "carol", {"text": FERRY, "k": 8})
    same = [h for h in ties if h["text"] == FERRY]
    assert len(same) == 3 and len({h["cosine"] for h in same}) == 1  # an exact tie, kept


@NO_LOG
def test_the_encoders_name_and_folder_are_known_without_it() -> None:
    from uac.fact_log.extraction import encoder
    from uac.runtime.search.embedders import EncoderEmbedder

    assert EncoderEmbedder.DIM == encoder.DIM == EncoderEmbedder().dim
    assert lean_recall._model_dir() == encoder.model_dir() is not None
    assert lean_recall.ENCODER_PACKAGE == encoder.PACKAGE
    assert lean_recall.ENCODER_FILES == ("model.safetensors", encoder.VOCABULARY)


@NO_LOG
def test_the_preference_slots_read_are_the_catalogs() -> None:
    from uac.fact_log.catalog import Catalog

    slots = [a for a in Catalog.load().attributes.values() if a.domain == "preferences"]
    assert len(slots) >= 6  # verbosity, answer order, format, language, time zone, signature
    assert [(a.path, a.domain, a.name) for a in slots] == [
        tuple(a) for a in lean_recall._preferences().attributes.values()
    ]
