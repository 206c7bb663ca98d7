"""Every test module that opens a workspace runs on both log backends (tests/conftest.py).

A module opts in with `pytestmark = pytest.mark.usefixtures("backend")` (or
"module_backend" for module-scoped workspaces); tests about the embedded file itself are
marked `duckdb_only` inside it. Modules that take `pg_url` are about PostgreSQL alone. The
ones below do not run on PostgreSQL yet: the list may only shrink.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import BACKENDS

from uac import Memory
from uac.fact_log.errors import WorkspaceError

HERE = Path(__file__).resolve().parent

# Not yet run on PostgreSQL: hypothesis-heavy modules (the slowest of the suite on DuckDB
# alone, tests/conftest.py) whose postgres runs are not yet checked or made cheap enough.
NOT_YET = {
    "test_concurrency.py",
    "test_import_shapes.py",
    "test_incremental.py",
}

# What opens a workspace: the API, the CLI (in process or as a child), the demo, a server,
# or the shared `mem` and `home` fixtures.
OPENS = re.compile(
    r"\bMemory\(|\bStore\.open\(|\brun_demo\(|\bserving\(|\b_cli\(|\bmain\(\[|"
    r"uac\.runtime\.cli|\((?:mem|home): |, (?:mem|home): "
)
OPTS_IN = re.compile(r'usefixtures\("(?:module_)?backend"\)|\bpg_url\b')


def _modules() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(HERE.glob("test_*.py"))}


def test_every_module_that_opens_a_workspace_runs_on_both_backends() -> None:
    missing = sorted(
        name
        for name, text in _modules().items()
        if OPENS.search(text) and not OPTS_IN.search(text) and name not in NOT_YET
    )
    assert missing == [], f"add pytestmark = pytest.mark.usefixtures('backend') to {missing}"


def test_the_not_yet_list_names_only_modules_still_on_duckdb_alone() -> None:
    modules = _modules()
    done = sorted(n for n in NOT_YET if n not in modules or OPTS_IN.search(modules[n]))
    assert done == [], f"remove {done} from NOT_YET: they run on both backends now"


def test_the_check_sees_a_module_that_opens_a_workspace() -> None:
    # The check must be able to fail: a module opening a workspace without a backend.
    text = "def test_x(tmp_path):\n    with Memory(tmp_path / 'ws', create=True):\n        pass\n"
    assert OPENS.search(text) and not OPTS_IN.search(text)


@pytest.mark.usefixtures("backend")
@pytest.mark.no_workspace("the test is that the mark refuses every workspace open")
def test_a_test_marked_no_workspace_runs_once_and_cannot_open_a_workspace(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # once, not per backend: the module's parameter has the first chosen backend alone
    assert request.node.callspec.params["module_backend"] == BACKENDS[0] or (
        request.config.getoption("backend") != "both"
    )
    with pytest.raises(WorkspaceError, match="no_workspace"):
        Memory(tmp_path / "ws", create=True)
    assert [p.name for p in request.session.items if "runs_once_and_cannot" in p.name] == [
        request.node.name
    ]


@pytest.mark.usefixtures("module_backend")
@pytest.mark.one_backend("the test is that the mark runs it once")
def test_a_test_marked_one_backend_runs_once(request: pytest.FixtureRequest) -> None:
    assert request.node.callspec.params["module_backend"] == BACKENDS[0] or (
        request.config.getoption("backend") != "both"
    )
    assert [p.name for p in request.session.items if "marked_one_backend_runs" in p.name] == [
        request.node.name
    ]
