"""What a local write loads: only what the write needs, in the command's own process.

A local `uac add` pays for every module it imports in every process. Two libraries are
loaded only where a write uses them: the DuckDB package's own start (its __init__ reads its
version through importlib.metadata; the store uses the engine it re-exports, `_duckdb`), and
python-stdnum (its util module loads ssl and pydoc), needed only for a card- or IBAN-shaped
number's checksum.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

_PROBE = """
import json, sys
from uac.runtime.cli import main

home, text = sys.argv[1], sys.argv[2]
assert main(["--home", home, "init"]) == 0
code = main(["--home", home, "add", "alice", text, "--json"])
loaded = sorted(n for n in ("duckdb", "stdnum") if n in sys.modules)
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _loaded_by_an_add(home: Path, text: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(home), text],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] == 0
    return list(report["loaded"])


def test_a_local_add_loads_neither_the_duckdb_package_nor_stdnum(tmp_path: Path) -> None:
    assert _loaded_by_an_add(tmp_path / "ws", "I moved to Lisbon last week.") == []


def test_the_probe_sees_stdnum_when_a_card_number_is_checked(tmp_path: Path) -> None:
    # A message holding a card-shaped number runs the Luhn checksum: the probe above can fail.
    said = "my card is 4111 1111 1111 1111"
    assert _loaded_by_an_add(tmp_path / "ws", said) == ["stdnum"]
