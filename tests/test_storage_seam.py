"""The storage seam (fact_log/backends/base.py): every backend implements the whole
`LogBackend` protocol, and no code outside fact_log/backends asks which backend it runs on.

These read the source and the classes; the behaviour behind the seam is tested on both
backends by the rest of the suite (tests/conftest.py runs it on each).
"""

from __future__ import annotations

import re
from pathlib import Path

from uac.fact_log.backends.base import AlertStorage, AlertWrite, LogBackend, Outbox
from uac.fact_log.backends.duckdb import DuckDBBackend, FileAlerts, FileOutbox, _FileAlertWrite
from uac.fact_log.backends.postgres import (
    PostgresBackend,
    SharedAlerts,
    SharedOutbox,
    _SharedAlertWrite,
)

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("fact_log", "compiler", "checks", "runtime")
# Asking which backend a store has, instead of calling it: the old `store.replica` (None on
# DuckDB), a test of a backend's name or class, or a PostgreSQL log reached around the seam.
BRANCH = re.compile(
    r"\.replica\b|\bpg is (?:not )?None|backend\.name\b|isinstance\([^)]*Backend\)"
    r"|backend\.log\b"
)


def _members(protocol: type) -> set[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n in vars(protocol) if not n.startswith("_")}
    return names


def test_each_backend_implements_every_member_of_the_protocols() -> None:
    pairs = [
        (LogBackend, (DuckDBBackend, PostgresBackend)),
        (AlertStorage, (FileAlerts, SharedAlerts)),
        (AlertWrite, (_FileAlertWrite, _SharedAlertWrite)),
        (Outbox, (FileOutbox, SharedOutbox)),
    ]
    missing = []
    for protocol, classes in pairs:
        members = _members(protocol)
        assert members, protocol
        for cls in classes:
            # Attributes set in __init__ are found on an instance; class ones on the class.
            init = cls.__init__.__code__.co_names  # type: ignore[misc]
            missing += [
                f"{cls.__name__}.{name}"
                for name in sorted(members)
                if not hasattr(cls, name) and name not in init
            ]
    assert missing == []


def test_no_code_above_the_backends_branches_on_the_backend() -> None:
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("fact_log/backends/"):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BRANCH.search(line):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []


def test_the_branch_pattern_finds_what_it_is_meant_to() -> None:
    # A guard that cannot fail is no guard: each form it forbids is matched.
    for line in (
        "if store.replica is not None:",
        "if pg is None:",
        'if mem.store.backend.name == "postgres":',
        "if isinstance(store.backend, PostgresBackend):",
        "log = store.backend.log",
    ):
        assert BRANCH.search(line), line
    assert not BRANCH.search("store.backend.sync(addr)")
