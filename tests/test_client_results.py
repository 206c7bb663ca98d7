"""The `Client`'s verbs answer with `Memory`'s result types, decoded from the wire's JSON.

A real `uac serve` (tests/test_serve.py `serving`) answers one call of each kind of result;
the same calls on a `Memory` of the workspace give the types the Client's must equal.
"""

from __future__ import annotations

from pathlib import Path

from test_serve import _admin, _key, serving

from uac import Memory
from uac.runtime.api.client import Client

PATH = "identity.passport.expiry_date"
RULE = {"type": "forbid", "collection": "trips", "field": "country", "value": "th"}


def test_the_client_returns_memorys_result_types(tmp_path: Path) -> None:
    # One call of each kind of result, over HTTP: the decoded answer has Memory's type.
    home = tmp_path / "ws"
    with serving(home) as info:
        client = Client(info["url"], _key(_admin(info), "default"))
        fact = client.set("alice", PATH, "2030-05-01")
        learned = client.add("alice", "I'm allergic to penicillin.")
        imported = client.import_records("alice", "allergies", [{"substance": "latex"}])
        (compiled,) = client.compile("alice")
        checked = client.check("alice")
        why = client.why("alice", "user.passport.expiry_date")
        old, new, changes = client.diff("alice")  # a tuple, as Memory.diff returns
        results = {
            "set": fact,
            "add": learned,
            "import_records": imported,
            "compile": compiled,
            "check": checked,
            "why": why,
            "search": client.search("alice", "penicillin")[0],
            "subjects": client.subjects()[0],
            "inputs": client.inputs("alice")[0],
            "facts": client.facts("alice")[0],
            "context": client.context("alice"),
            "rule": client.add_rule("alice", RULE),
        }
        assert fact.value == "2030-05-01" and fact.path == PATH
        assert learned.facts and learned.facts[0].path.startswith("health.")
        assert compiled.address.tenant == "default" and str(compiled.address) == "user:alice"
        assert checked.address == compiled.address and why.value == "2030-05-01"
        assert old < new and isinstance(changes, list)
    with Memory(home) as mem:
        expected = {
            "set": type(mem.set("bob", PATH, "2031-01-01")),
            "add": type(mem.remember("bob", "I live in Lisbon.")),
            "import_records": type(mem.import_records("bob", "allergies", [{"substance": "x"}])),
            "compile": type(mem.compile("bob")[0]),
            "check": type(mem.check("bob")),
            "why": type(mem.why("alice", "user.passport.expiry_date")),
            "search": type(mem.search("alice", "penicillin")[0]),
            "subjects": type(mem.subjects()[0]),
            "inputs": type(mem.inputs("alice")[0]),
            "facts": type(mem.facts("alice")[0]),
            "context": str,
            "rule": str,
        }
    assert {k: type(v) for k, v in results.items()} == expected
