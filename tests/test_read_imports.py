"""Read commands never load the extractor or numpy-backed models; only a ranking loads the encoder.

Only a write needs the extraction package (`uac.fact_log.extraction`: ~900 regular
expressions compiled at import, and any model a module under it loads), so every read
command runs in a fresh interpreter here and the modules it left in `sys.modules` are
checked: no module under the extraction prefix (new modules there are covered without
naming them), nor numpy, pyarrow, Jinja2 or an encoder library except where the command's
own work needs them: a search, or a context for a query, ranks with numpy and embeds the
query with the shipped encoder (`uac.fact_log.extraction.encoder`, the default semantic
list), never with the extractor's patterns.

Modules only accumulate in `sys.modules`, so one interpreter runs the commands in turn and
checks after each: a forbidden module is blamed on the first command after which it shows.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from uac import Memory

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.duckdb_only(
        "what a local read imports on the embedded file; a PostgreSQL-bound CLI loads psycopg "
        "and its probe workspace is not bound to the test's cluster"
    ),
]

T0 = dt.datetime(2026, 3, 1, 9, 0)

EXTRACTOR = "uac.fact_log.extraction"
# A model or array library a plain read has no use for (the encoder's, the search index's).
MODELS = ("numpy", "pyarrow", "torch", "transformers", "sentence_transformers", "onnxruntime")
# Code generation: a read of a compiled subject never renders templates.
RENDERING = ("jinja2",)

# The reads answered without `Memory` (runtime/api/lean_reads.py), run first: what they
# load is checked against LEAN_FORBIDDEN too, before a full read loads it.
LEAN: list[tuple[str, ...]] = [
    ("facts", "alice"),
    ("facts", "alice", "--json"),
    ("inputs", "alice"),
    ("subjects",),
    ("rejections", "alice"),
    ("alerts", "alice"),
    ("alerts",),
    ("questions", "alice"),
    ("manifest", "alice"),
    ("erasures", "alice"),
]
# Lean reads of the typed state: they import the subject's checkpoint (its generated
# modules), nothing else LEAN_FORBIDDEN names.
LEAN_TYPED: list[tuple[str, ...]] = [
    ("why", "alice", "user.passport.expiry_date"),
    ("diff", "alice"),
]
# The lean read of the whole log: it walks the chain (`uac.fact_log.chain`: the digests of
# each row), nothing else LEAN_FORBIDDEN names.
LEAN_CHAIN: list[tuple[str, ...]] = [("verify",)]
# What `Memory` and the full verbs load, and a lean read must not: the verb table's
# validation (pydantic), the DuckDB package's start (its version read through
# importlib.metadata; the lean reads use its engine), the store and its backends, the
# checks' library and lifecycle, the compiler's fold and publishing, the sandbox, the
# subject's generated modules (`uac_checkpoint_*`: statuses and the manifest are files),
# and what the CLI's start would load for nothing.
LEAN_FORBIDDEN = (
    "pydantic",
    "duckdb",
    "uac.runtime.api.memory",
    "uac.runtime.api.verbs",
    "uac.runtime.api.client",
    "uac.fact_log.store",
    "uac.fact_log.chain",
    "uac.fact_log.backends",
    "uac.checks.alerts",
    "uac.checks.library",
    "uac.checks.scheduler",
    "uac.checks.sinks",
    "uac.compiler.fold",
    "uac.compiler.checkpoint",
    "uac.runtime.sandbox",
    "uac.runtime.search",
    # The CLI's start: the families of commands no read runs, and `shutil` (with bz2, lzma),
    # which argparse's stock help formatter imports for every argument added.
    "uac.runtime.cli.writes",
    "uac.runtime.cli.ops",
    "uac.runtime.cli.sharing",
    "uac.runtime.cli.preview",
    "shutil",
    "bz2",
    "lzma",
)
CHECKPOINT_MODULES = "uac_checkpoint_"
# Every read command, in the order run: those that may rank with numpy come last.
READS: list[tuple[str, ...]] = [
    *LEAN,
    *LEAN_TYPED,
    *LEAN_CHAIN,
    ("--help",),  # every command's parser: `uac worker`'s defaults are the job queue's
    ("anchor", "export"),
    ("member", "list", "alice"),
    ("query", "alice", "user.passport.expiry_date.year"),
    ("tools",),
    ("context", "alice", "--today", "2026-03-02"),  # no query: nothing to rank
]
RANKING: list[tuple[str, ...]] = [
    ("search", "alice", "passport"),
    ("context", "alice", "--today", "2026-03-02", "--query", "when is my appointment"),
]
# The one read allowed part of the extractor: a context for a query quotes the user's notes,
# and instruction-like sentences in them are neutralised by the secret and instruction
# scanner (fact_log/extraction/screen.py, its regexes compiled at first use by lazy.py).
# Never the patterns, never anything else.
SCANNER = {f"{EXTRACTOR}{m}" for m in ("", ".screen", ".safety", ".prefilter", ".lazy")}
SCANS = [RANKING[1]]
# What a ranking may load of the package besides: the encoder that embeds the query (and the
# module that says where its files are).
ENCODER = {EXTRACTOR, f"{EXTRACTOR}.encoder", f"{EXTRACTOR}.encoder_files"}

_PROBE = """
import contextlib, io, json, sys
from uac.runtime.cli import main

home, reads, ranking, extractor, models, rendering, lean, forbidden = json.loads(sys.argv[1])

def loaded(names):
    return sorted(m for m in sys.modules if any(m == n or m.startswith(n + ".") for n in names))

def generated():  # a subject's imported checkpoint modules
    return sorted(m for m in sys.modules if m.startswith("uac_checkpoint_"))

report = []
for argv in reads + ranking:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = main(["--home", home, *argv])
    except SystemExit as exc:  # --help
        code = exc.code
    report.append({
        "argv": argv,
        "code": code,
        "printed": len(out.getvalue()),
        "extractor": loaded([extractor]),
        "models": loaded(models) if argv in reads else [],
        "rendering": loaded(rendering),
        "lean": loaded(forbidden) + generated(),
    })
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A compiled workspace with what every read shows: facts, an input, a note, an alert
    rule, two checkpoints (for diff) and a group membership."""
    home = tmp_path_factory.mktemp("reads") / "ws"
    with Memory(home, create=True) as mem:  # reacting: each write compiles and checks
        mem.set("alice", "identity.passport.expiry_date", "2026-04-01", now=T0)
        mem.add("alice", "I moved to Lisbon last week.", now=T0 + dt.timedelta(hours=1))
        mem.remember("alice", "My passport renewal appointment is at the consulate", now=T0)
        rule = {"type": "reminder", "path": "passport.expiry_date", "days_before": 60}
        mem.add_rule("alice", rule, now=T0)
        mem.member_add("group:family", "alice", now=T0)
        mem.search("alice", "passport")  # indexes the log, as any writable search does
    return home


def _probe(
    home: Path,
    reads: list[tuple[str, ...]] = READS,
    ranking: list[tuple[str, ...]] = RANKING,
    forbidden: tuple[str, ...] = LEAN_FORBIDDEN,
) -> list[dict[str, Any]]:
    arg = json.dumps([str(home), reads, ranking, EXTRACTOR, MODELS, RENDERING, LEAN, forbidden])
    return _run(textwrap.dedent(_PROBE), [arg])


def _run(probe: str, args: list[str], env: dict[str, str] | None = None) -> Any:
    """The JSON document a probe printed last, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_read_commands_load_neither_the_extractor_nor_models(workspace: Path) -> None:
    report = _probe(workspace)
    assert [tuple(r["argv"]) for r in report] == [*READS, *RANKING]
    for r in report:
        # Each command worked and printed something: a failing command proves nothing.
        assert r["code"] == 0 and r["printed"], r
    extractor = [
        (r["argv"], r["extractor"])
        for r in report
        if set(r["extractor"])
        - (SCANNER if tuple(r["argv"]) in SCANS else set())
        - (ENCODER if tuple(r["argv"]) in RANKING else set())
    ]
    assert extractor == []
    assert [(r["argv"], r["models"]) for r in report if r["models"]] == []
    assert [(r["argv"], r["rendering"]) for r in report if r["rendering"]] == []
    lean = [r for r in report if tuple(r["argv"]) in LEAN]
    assert [(r["argv"], r["lean"]) for r in lean if r["lean"]] == []
    typed = [r for r in report if tuple(r["argv"]) in LEAN_TYPED]
    leaked = [
        (r["argv"], [m for m in r["lean"] if not m.startswith(CHECKPOINT_MODULES)]) for r in typed
    ]
    assert [(argv, found) for argv, found in leaked if found] == []
    chain = [r for r in report if tuple(r["argv"]) in LEAN_CHAIN]  # after the typed reads
    leaked = [
        (r["argv"], [m for m in r["lean"] if not m.startswith(CHECKPOINT_MODULES)]) for r in chain
    ]
    assert [(argv, found) for argv, found in leaked if set(found) - {"uac.fact_log.chain"}] == []
    # The probe sees what loads: the checks above can fail.
    assert any(m.startswith(CHECKPOINT_MODULES) for m in typed[0]["lean"])
    (anchor,) = [r for r in report if r["argv"][0] == "anchor"]  # the first through Memory
    assert {"pydantic", "uac.runtime.api.memory", "uac.fact_log.store"} <= set(anchor["lean"])
    (helped,) = [r for r in report if r["argv"] == ["--help"]]  # help reads the width
    assert "shutil" in helped["lean"] and "uac.runtime.cli.writes" not in helped["lean"]


# The recall reads answered without `Memory` (runtime/api/lean_recall.py), each in a fresh
# interpreter: a context without a query loads the context's modules of the search package
# and the subject's checkpoint, no model; a search loads the index's read half over plain
# rows (runtime/search/rows.py: no numpy, no pyarrow) and embeds a new query with the
# encoder (numpy, the tokenizer), never the index's upkeep, and nothing else LEAN_FORBIDDEN
# names; asked again, the query's vector is read from the workspace's cache, so
# neither the encoder module, numpy, pyarrow nor the tokenizer is loaded.
LEAN_CONTEXT = ("context", "alice", "--today", "2026-03-02")
LEAN_SEARCH = ("search", "alice", "renewal appointment")
UPKEEP = {f"uac.runtime.search.{m}" for m in ("index", "indexing", "schema")}
ENCODING = ("tokenizers",)


def _leaked(found: list[str]) -> list[str]:
    """What a lean recall read loaded of LEAN_FORBIDDEN besides what it may."""
    search = [m for m in found if m == "uac.runtime.search" or m.startswith("uac.runtime.search.")]
    allowed = set(search) - UPKEEP
    return [m for m in found if m not in allowed and not m.startswith(CHECKPOINT_MODULES)]


def test_search_and_context_answer_without_memory(workspace: Path) -> None:
    (context,) = _probe(workspace, [LEAN_CONTEXT], [])
    assert context["code"] == 0 and context["printed"], context
    assert (context["extractor"], context["models"], _leaked(context["lean"])) == ([], [], [])
    assert any(m.startswith(CHECKPOINT_MODULES) for m in context["lean"])  # the probe sees
    forbidden = (*LEAN_FORBIDDEN, *ENCODING, *UPKEEP, *MODELS)
    first, again = (_probe(workspace, [], [LEAN_SEARCH], forbidden)[0] for _ in range(2))
    encoding = (*ENCODING, "numpy")  # a new query's vector: the encoder runs in numpy
    for search, may in ((first, encoding), (again, ())):
        assert search["code"] == 0 and search["printed"], search
        assert set(search["extractor"]) <= (ENCODER if may else set()), search["extractor"]
        assert _leaked([m for m in search["lean"] if m.split(".")[0] not in may]) == []
    assert "uac.runtime.search.ranking" in again["lean"]  # the probe sees the search package
    assert "uac.runtime.search.rows" in again["lean"]
    assert "tokenizers" in first["lean"] and "numpy" in first["lean"]  # and the models
    arrays = {"uac.runtime.search.arrays", "uac.runtime.search.dense"}  # numpy's lists
    assert not arrays & set(first["lean"] + again["lean"])


# A search for a new query in a fresh interpreter, noting what OPENBLAS_NUM_THREADS held when
# numpy was imported (OpenBLAS reads it as it loads) and what it holds after the command.
_BLAS_PROBE = """
import contextlib, io, json, os, sys
from uac.runtime.cli import main

seen = []

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
        return None

sys.meta_path.insert(0, Watch())
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["--home", sys.argv[1], "search", "alice", sys.argv[2]])
after = os.environ.get("OPENBLAS_NUM_THREADS")
print(json.dumps({"code": code, "printed": len(out.getvalue()), "at_numpy": seen,
                  "after": after, "numpy": "numpy" in sys.modules}))
"""


def _blas_probe(home: Path, query: str, **env: str) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    return dict(_run(_BLAS_PROBE, [str(home), query], {**base, **env}))


def test_a_new_querys_search_loads_numpy_on_one_blas_thread_and_restores_the_variable(
    workspace: Path,
) -> None:
    # OpenBLAS would start a spinning worker per core for the encoder's few small products;
    # the variable is the command's while it runs, and a caller's own value is kept.
    ran = _blas_probe(workspace, "consulate opening hours in spring")
    assert ran["code"] == 0 and ran["printed"] and ran["numpy"], ran
    assert ran["at_numpy"][-1:] == ["1"] and ran["after"] is None
    kept = _blas_probe(workspace, "documents for the embassy visit", OPENBLAS_NUM_THREADS="2")
    assert kept["code"] == 0 and kept["printed"] and kept["numpy"], kept
    assert kept["at_numpy"][-1:] == ["2"] and kept["after"] == "2"


def test_the_probe_sees_the_extractor_when_a_write_loads_it(tmp_path: Path) -> None:
    # The same probe over a command that extracts (a message) names the extractor: the
    # check above can fail.
    probe = textwrap.dedent(_PROBE).replace('main(["--home", home, *argv])', "main(argv)")
    home = tmp_path / "ws"
    add = ["--home", str(home), "add", "alice", "My passport expires on 2031-05-02"]
    arg = json.dumps(
        [str(home), [["init", "--home", str(home)], add], [], EXTRACTOR, [], [], [], []]
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, arg], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    init, added = json.loads(done.stdout.splitlines()[-1])
    assert init["code"] == 0 and added["code"] == 0
    assert f"{EXTRACTOR}.patterns" in added["extractor"]
