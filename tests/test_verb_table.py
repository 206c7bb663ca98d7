"""The verb table is the one place a verb is named: Memory, Client, protocol and routes agree.

`Client`'s verb methods and the `Verbs` protocol are generated from the table and Memory's
signatures (runtime/api/verb_codegen.py); these tests fail when the committed file is
stale, when a Client signature differs from Memory's, when a type checker finds that
Memory or Client does not satisfy `Verbs`, or when a row names a method Memory lacks.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uac import Client, Memory
from uac.runtime.api import verb_codegen, verbs

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_verb_methods_are_current() -> None:
    assert verb_codegen.TARGET.read_text(encoding="utf-8") == verb_codegen.render(), (
        "runtime/api/verb_methods.py is stale: run python -m uac.runtime.api.verb_codegen"
    )
    assert verb_codegen.FACADE.read_text(encoding="utf-8") == verb_codegen.render_facade(), (
        "runtime/api/memory_verbs.py is stale: run python -m uac.runtime.api.verb_codegen"
    )


def test_memory_exposes_every_public_method_of_its_services() -> None:
    import importlib

    missing = [
        f"{cls}.{name}"
        for _, module, cls in verb_codegen.SERVICES
        for name in vars(getattr(importlib.import_module(module), cls))
        if not name.startswith("_")
        and not hasattr(Memory, name)
        and not hasattr(Memory, f"_{name}")  # the verb table's (`_rule`): not public
    ]
    assert missing == []


def test_every_verb_is_a_service_method_or_memory_own() -> None:
    # a verb a service holds is exposed by the generated facade, with that method's signature
    for name in verbs.BY_METHOD:
        found = verb_codegen._service(name)
        if found is not None:
            _, service = found
            assert inspect.signature(getattr(Memory, name)) == inspect.signature(
                getattr(service, name)
            )
        else:  # the verbs over the whole open workspace are the facade's own
            assert name in vars(Memory), name


def test_client_and_memory_have_the_same_signature_for_every_verb() -> None:
    mismatched = [
        name
        for name in verbs.BY_METHOD
        if inspect.signature(getattr(Memory, name)) != inspect.signature(getattr(Client, name))
    ]
    assert len(verbs.BY_METHOD) >= 40
    assert mismatched == []


def test_every_row_names_methods_memory_has_and_fields_its_method_takes() -> None:
    for verb in verbs.VERBS.values():
        for name in verb.method_names:
            params = inspect.signature(getattr(Memory, name)).parameters
            sent = {p for p, _ in verb.sent_as}
            unknown = set(verb.args.model_fields) - set(params) - {"content", "name"}
            # import and note receive the file's text: their other fields are Memory's
            assert not unknown or sent, (verb.name, name, unknown)
        for alias in verb.aliases:
            assert verbs.verb(alias) is verb


def test_memory_and_client_satisfy_the_verbs_protocol_for_a_type_checker(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    # The package installs as `uac` from the repository's root (a package-dir mapping):
    # the checker finds it through a link of that name. Link and mypy's incremental cache
    # live in pytest's cache directory (ignored by git), so a later run re-checks only the
    # modules whose source changed (and their dependents), as mypy does for any project: a
    # cold check of the package cost ~13 s of CPU, a warm one ~0.7 s (2026-12-08).
    kept = pytestconfig.cache.mkdir("mypy-verbs") if pytestconfig.cache else tmp_path
    link = kept / "path" / "uac"
    if not link.is_symlink() or link.resolve() != ROOT:
        link.parent.mkdir(exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(ROOT, target_is_directory=True)
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from uac import Client, Memory\n"
        "from uac.runtime.api.verb_methods import Verbs\n\n\n"
        "def check(memory: Memory, client: Client) -> list[Verbs]:\n"
        "    return [memory, client]\n\n\n"
        "def wrong(client: Client) -> int:\n"
        "    return client.facts('alice')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            f"--cache-dir={kept / 'cache'}",
            str(probe),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(link.parent)},
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    # exactly the planted error: the checker sees the Client's real result types
    assert len(errors) == 1 and "probe.py:10" in errors[0], done.stdout
    assert "list[Fact]" in errors[0]


@pytest.mark.parametrize("name", ["ack", "tenant-ack", "tenant-alerts", "tenant-snooze"])
def test_earlier_wire_names_still_answer(name: str) -> None:
    assert verbs.verb(name).name in {"acknowledge", "alerts", "snooze"}
