"""Scopes that share safely: membership, inheritance, scope policy, promote/demote, aging."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import T0, counts

from uac import Memory
from uac.compiler.loader import subject_dir
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError, NotFound
from uac.runtime.search.embedders import HashingEmbedder
from uac.runtime.search.soft_preferences import recall

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

H = dt.timedelta(hours=1)


def _state(mem: Memory, user: str):
    (res,) = mem.compile(user)
    assert res.status == "published", res.error
    return mem.checkpoint(user).user


def test_members_are_facts_with_validity_times(mem: Memory) -> None:
    fact = mem.member_add("group:family", "alice", valid_from=dt.date(2025, 1, 1), now=T0)
    assert (fact.kind, fact.subject, fact.scope, fact.record_key) == (
        "membership",
        "family",
        "group",
        "alice",
    )
    mem.member_add("group:family", "bob", now=T0)
    assert [m["user"] for m in mem.members("group:family", at=T0)] == ["alice", "bob"]
    assert [m["user"] for m in mem.members("group:family", at=dt.datetime(2024, 6, 1))] == ["bob"]
    assert [m["group"] for m in mem.members("alice", at=T0)] == ["group:family"]
    mem.member_remove("group:family", "bob", at=T0 + H, now=T0 + H)
    assert [m["user"] for m in mem.members("group:family", at=T0 + 2 * H)] == ["alice"]
    assert [m["user"] for m in mem.members("group:family", at=T0)] == ["alice", "bob"]
    with pytest.raises(InputError, match="'bob' is not a member of group:family"):
        mem.member_remove("group:family", "bob", now=T0 + 2 * H)
    assert mem.verify().ok


def test_bad_memberships_are_refused_and_write_nothing(mem: Memory) -> None:
    before = counts(mem)
    with pytest.raises(InputError, match="groups of groups are not supported"):
        mem.member_add("group:family", "group:kids", now=T0)
    with pytest.raises(InputError, match="belongs to tenant 'other'"):
        mem.member_add("group:family", Address("other", "user", "eve"), now=T0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="is not a group"):
        mem.member_add("alice", "bob", now=T0)
    with pytest.raises(InputError, match="must be after --from"):
        mem.member_add("group:family", "bob", valid_from=T0, valid_to=T0 - H, now=T0)
    assert counts(mem) == before


def test_a_user_inherits_group_and_tenant_values_under_precedence(mem: Memory) -> None:
    mem.member_add("group:family", "alice", now=T0)
    mem.member_add("group:work", "alice", now=T0)
    mem.set("tenant", "preferences.language", "pt", now=T0)
    mem.set("tenant", "preferences.format", "table", now=T0)
    mem.set("group:family", "places.address.city", "Lisbon", now=T0)
    mem.set("group:work", "places.address.city", "Porto", now=T0 + H)  # the more recent wins
    mem.set("group:family", "preferences.format", "bullets", now=T0)  # group over tenant
    mem.set("group:family", "identity.name", "The Okafors", now=T0)  # inherit = false
    mem.set("alice", "preferences.language", "en", now=T0)  # the user's own over the tenant
    user = _state(mem, "alice")
    assert user.address.city == "Porto"
    assert user.preferences.format == "bullets"
    assert user.preferences.language == "en"
    assert user.identity.name is None
    assert user.inherited_from == {
        "user.address.city": "group:work",
        "user.preferences.format": "group:family",
    }
    why = mem.why("alice", "user.address.city")
    assert [why.scopes[f.id] for f in why.facts] == ["group:work"]
    assert [why.scopes[f.id] for f in why.superseded] == ["group:family"]
    assert "inherited from group:work" in mem.manifest("alice")


def test_same_logs_give_byte_identical_code(tmp_path: Path, fresh_log) -> None:
    outputs = []
    for name in ("a", "b"):  # two independent logs
        with fresh_log(name), Memory(tmp_path / name, create=True, react=False) as mem:
            mem.member_add("group:family", "alice", now=T0)
            mem.set("group:family", "places.address.city", "Lisbon", now=T0)
            mem.set("tenant", "preferences.language", "pt", now=T0)
            mem.set("alice", "places.location.city", "Faro", now=T0)
            mem.compile("alice")
            base = subject_dir(mem.home, mem.address("alice"))
            current = base / "versions" / (base / "current").read_text().strip()
            outputs.append(
                {
                    p.name: p.read_bytes()
                    for p in current.iterdir()
                    if p.suffix in (".py", ".json", ".md") and p.name != "files.json"
                }
            )
    assert outputs[0] == outputs[1]


def test_a_removed_member_loses_inherited_values_at_the_next_checkpoint(mem: Memory) -> None:
    mem.member_add("group:family", "bob", now=T0)
    mem.set("bob", "identity.name", "Bob", now=T0)
    mem.set("group:family", "places.address.city", "Lisbon", now=T0)
    assert _state(mem, "bob").address.city == "Lisbon"
    assert not mem.stale("bob")
    mem.member_remove("group:family", "bob", now=T0 + H)
    assert mem.stale("bob")  # a membership change is news to the member
    assert _state(mem, "bob").address.city is None
    # time travel still sees the membership of its time
    (old,) = mem.compile("bob", as_of=T0 + H / 2)
    assert old.status == "published" and not old.current


def test_a_group_write_recompiles_its_members(home: Path) -> None:
    with Memory(home, create=True) as mem:  # reacting, as a service would
        mem.set("alice", "identity.name", "Alice", now=T0)
        mem.set("bob", "identity.name", "Bob", now=T0)
        mem.member_add("group:family", "alice", now=T0)
        mem.member_add("group:family", "bob", now=T0)
        mem.set("group:family", "places.address.city", "Lisbon", now=T0 + H)
        for user in ("alice", "bob"):
            assert not mem.stale(user)
            assert mem.checkpoint(user).user.address.city == "Lisbon"


def test_scope_policy_is_checked_on_every_write(mem: Memory) -> None:
    before = counts(mem)
    with pytest.raises(InputError, match=r"identity\.passport\.number may not be written to group"):
        mem.set("group:family", "identity.passport.number", "X123", now=T0)
    with pytest.raises(InputError, match=r"health\.allergies may not be written to tenant"):
        mem.import_records("tenant", "allergies", [{"substance": "nuts"}], now=T0)
    assert counts(mem) == before
    mem.set("group:family", "places.address.city", "Lisbon", now=T0)  # may live at a group
    mem.add_note("group:team", "Convention: PR titles start with the ticket id.", now=T0)


def test_promote_records_who_what_and_when_and_demote_withdraws(mem: Memory) -> None:
    mem.member_add("group:family", "alice", now=T0)
    mem.member_add("group:family", "bob", now=T0)
    mem.set("bob", "identity.name", "Bob", now=T0)
    note = mem.add_note("alice", "The spare key is with the neighbour at no. 12.", now=T0)
    mem.set("alice", "identity.passport.number", "X123", now=T0)
    assert _state(mem, "bob").notes == ()  # user-scope: never visible without a promote
    copy = mem.promote("alice", note.id, "group:family", now=T0 + H)
    assert copy.subject == "family" and copy.recorded_at == T0 + H
    assert copy.evidence["promoted_from"] == {"subject": "user:alice", "fact": note.id}
    assert copy.evidence["promoted_by"] == mem.actor
    assert [n.text for n in _state(mem, "bob").notes] == [note.text]
    assert [n.fact_id for n in _state(mem, "alice").notes] == [note.id]  # not twice
    with pytest.raises(InputError, match="already promoted"):
        mem.promote("alice", note.id, "group:family", now=T0 + H)
    with pytest.raises(NotFound, match="has no promoted fact"):
        mem.demote("bob", note.id, "group:family", now=T0 + 2 * H)
    mem.demote("alice", note.id, "group:family", reason="moved", now=T0 + 2 * H)
    assert _state(mem, "bob").notes == ()


def test_promote_refuses_what_it_must(mem: Memory) -> None:
    mem.member_add("group:family", "alice", now=T0)
    passport = mem.set("alice", "identity.passport.number", "X123", now=T0)
    note = mem.add_note("alice", "hello", now=T0)
    with pytest.raises(InputError, match="scope policy allows it only at user"):
        mem.promote("alice", passport.id, "group:family", now=T0)
    with pytest.raises(NotFound, match="only the user's own facts"):
        mem.promote("alice", "f_nope", "group:family", now=T0)
    with pytest.raises(InputError, match="'carol' is not a member of group:family"):
        mem.add_note("carol", "mine", now=T0)
        mem.promote("carol", mem.facts("carol")[0].id, "group:family", now=T0)
    with pytest.raises(InputError, match="not a group"):
        mem.promote("alice", note.id, "tenant", now=T0)
    mem.forget("alice", note.id, now=T0 + H)
    with pytest.raises(InputError, match="was forgotten"):
        mem.promote("alice", note.id, "group:family", now=T0 + H)


def test_stale_values_carry_as_of_and_ask_to_be_confirmed(mem: Memory) -> None:
    mem.set("alice", "identity.birth_date", "1990-04-01", now=T0)
    mem.set("alice", "places.location.city", "Faro", now=T0)
    user = _state(mem, "alice")
    assert user.as_of == {"user.location.city": T0.date()}  # a birth date never goes stale
    assert user.stale_after_days == {"user.location.city": 3}
    assert mem.check("alice", today=T0.date() + dt.timedelta(days=3)).new == []
    late = T0.date() + dt.timedelta(days=4)
    result = mem.check("alice", today=late)
    assert not result.errors, result.errors  # a library alert without a why is a check error
    (alert,) = result.new
    assert (alert.check, alert.severity) == ("stale_value", "info")
    assert "no longer be true" in alert.why and "Ask the user" in alert.next_step
    assert "Is user.location.city still right?" in alert.message
    assert "user.location.city: last confirmed 2025-01-01, 4 days ago" in mem.context(
        "alice", today=late
    )
    mem.set("alice", "places.location.city", "Faro", now=T0 + dt.timedelta(days=4))  # confirm
    mem.compile("alice")
    assert [a.check for a in mem.check("alice", today=late).resolved] == ["stale_value"]


def test_soft_preferences_below_the_decay_floor_are_dropped(mem: Memory) -> None:
    old = mem.prefer("alice", "Mention the weather in travel answers", now=T0)
    facts = mem.facts("alice", "preferences.soft")
    kept = recall(facts, set(), HashingEmbedder(), None, today=T0.date())
    assert [p.fact_ids for p in kept] == [(old.id,)]
    later = T0.date() + dt.timedelta(days=3 * 365)
    assert recall(facts, set(), HashingEmbedder(), None, today=later) == []


def test_context_holds_what_the_groups_and_the_tenant_share(mem: Memory) -> None:
    mem.member_add("group:team", "bob", now=T0)
    mem.set("bob", "identity.name", "Bob", now=T0)
    mem.add_note("group:team", "Deploys happen on Tuesdays after the standup.", now=T0)
    mem.add_note("tenant", "The office closes for the holidays on 23 December.", now=T0)
    mem.add_note("group:other", "Other team's deploys happen on Fridays.", now=T0)
    mem.set("group:team", "places.address.city", "Leeds", now=T0)
    mem.compile("bob")
    block = mem.context("bob", query="when do deploys happen?", today=T0.date())
    assert "Deploys happen on Tuesdays" in block and "city='Leeds'" in block
    assert "Fridays" not in block  # not a member of group:other
    assert "holidays" in mem.context("bob", query="office holidays", today=T0.date())


def test_what_the_extractor_finds_out_of_scope_is_refused_with_its_reason(mem: Memory) -> None:
    learned = mem.add("group:family", "My driving licence expires on 14 May 2029.", now=T0)
    assert learned.facts == [] and learned.refused == ["scope_policy"]
    (row,) = mem.rejections("group:family")
    assert (row["reason"], row["path"]) == ("scope_policy", "identity.driver_licence.expiry_date")
    assert len(mem.inputs("group:family")) == 1  # the message itself is archived
