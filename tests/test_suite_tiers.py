"""The suite's tiers (tests/conftest.py): marks set from what a test uses, a measured slow list.

The marks are registered in pyproject.toml under strict markers, so a test carrying a misspelt
mark fails the run; the slow list names only tests that exist, so it cannot rot silently.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from pathlib import Path

from conftest import SLOW_TESTS, _slow_test_ids, _starts_server
from slow_list import slow_tests

ROOT = Path(__file__).resolve().parents[1]
TIERS = {"unit", "service", "postgres", "browser", "slow"}


def test_the_tiers_are_registered_under_strict_markers() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    registered = {line.split(":")[0] for line in options["ini_options"]["markers"]}
    assert registered >= TIERS
    assert "--strict-markers" in options["ini_options"]["addopts"].split()


@functools.cache  # a module lists hundreds of slow tests: parsed once
def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_slow_test_listed_exists() -> None:
    ids = _slow_test_ids()
    assert ids, f"{SLOW_TESTS} lists no test"
    missing = []
    for node in sorted(ids):
        path, _, rest = node.partition("::")
        name = re.split(r"[\[:]", rest)[0]
        file = ROOT / path
        if not file.is_file() or name not in _functions(file):
            missing.append(node)
    assert missing == [], f"remove from {SLOW_TESTS.name} (no such test): {missing}"


# A stand-in starter, so this module's own tests are not taken for service tests.
STARTERS = frozenset({"start_a_server"})


def _helper_that_serves() -> None:
    start_a_server(ROOT)  # type: ignore[name-defined]  # noqa: F821  # never called: names count


def test_a_test_that_starts_a_server_is_found_through_its_helpers() -> None:
    def direct() -> None:
        with start_a_server(ROOT):  # type: ignore[name-defined]  # noqa: F821
            pass

    def through_a_helper() -> None:
        _helper_that_serves()

    def in_process() -> None:
        assert ROOT.exists()

    assert _starts_server(direct, set(), STARTERS)
    assert _starts_server(through_a_helper, set(), STARTERS)
    assert not _starts_server(in_process, set(), STARTERS)


def test_each_module_keeps_its_cheapest_test_fast_unless_over_the_cap() -> None:
    seconds = {
        "tests/test_a.py::test_one": 3.0,
        "tests/test_a.py::test_two": 1.5,
        "tests/test_b.py::test_one": 3.0,
        "tests/test_b.py::test_two": 0.1,
        "tests/test_c.py::test_one": 40.0,
    }
    slow = slow_tests(seconds, threshold=1.0, module_cap=10.0)
    # test_a keeps test_two (its cheapest); test_b has a fast test already; test_c's only
    # test is over the cap.
    assert sorted(slow) == [
        "tests/test_a.py::test_one",
        "tests/test_b.py::test_one",
        "tests/test_c.py::test_one",
    ]
