"""The chain's bytes are pinned: `prepare` gives the same rows, hashes and digests as always.

Hashes are what `verify` and every other node check, so a faster `prepare` must produce them
byte for byte. The expected digest below was computed by the row-by-row `prepare` this file
was written against (before the bulk encoding); any change to it breaks every stored log.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from decimal import Decimal
from pathlib import Path

from uac.fact_log.addressing import Address
from uac.fact_log.chain import Batch, NewFact, NewInput, NewRejection, prepare, slices
from uac.fact_log.chain_keys import KeyRing

RING = KeyRing(Path("/nonexistent/chain.key"), "k1", {"k1": bytes(range(32))})
AT = dt.datetime(2026, 11, 29, 12, 0, 0, 123456)


def _batch(n: int) -> Batch:
    """A batch exercising every cell kind: text with escapes, None, floats, times, JSON."""
    batch = Batch(Address("acme", "user", "alice"), AT, "api")
    batch.inputs.append(NewInput("import", 'a "file"\nwith ünïcode \u2028 and \\', "import", "f"))
    batch.inputs.append(
        NewInput("message", "hi", "chat", role="user", session_id="s1", observed_at=AT)
    )
    for i in range(n):
        batch.facts.append(
            NewFact(
                op=("assert", "retract")[i % 2],
                kind=("record", "attribute")[i % 3 % 2],
                path=("travel.trips", "preferences.verbosity")[i % 2],
                value=(
                    {"city": f"Zürich {i}", "cost": f"{i}.50", "n": i, "ok": True, "x": None}
                    if i % 2 == 0
                    else [i, 1.5, "\u2028", {"b": 1, "a": [Decimal("1.10")]}]
                ),
                record_key=None if i % 5 == 0 else f"k|{i}",
                text=None if i % 3 else f'note "{i}"\t\x01',
                source=("import", "explicit_command", "inferred")[i % 3],
                confidence=(1.0, 0.85, 1 / 3)[i % 3],
                evidence=None if i % 4 == 0 else {"where": f"line {i}", "z": [1, 2]},
                valid_from=None if i % 2 else dt.datetime(2020, 1, 1, 9, 30) + dt.timedelta(i),
                valid_to=None if i % 3 else dt.datetime(2021, 5, 1, tzinfo=dt.UTC),
                input_index=(0, 1, None)[i % 3],
                input_id=None if i % 3 != 2 else f"i_given{i}",
                session_id=None if i % 2 else "s1",
            )
        )
    batch.rejections.append(NewRejection("secret", "travel.trips", {"k": "v"}, 0))
    batch.rejections.append(NewRejection("record_refused", None, None, None))
    return batch


def _digest(n: int, head: tuple[int, str], size: int = 0) -> str:
    """The digest of the batch's rows, prepared whole or (size > 0) in slices of that size."""
    batch, run = _batch(n), head[0] + 1
    fact_seqs, input_seqs = itertools.count(run), itertools.count(8)
    ids: list[str] = []
    parts = slices(batch, size, ids) if size else [batch]
    rows: tuple[list[tuple[object, ...]], ...] = ([], [], [])
    for part in parts:
        prep = prepare(part, RING, head, fact_seqs, input_seqs, run)
        if not ids:
            ids.extend(row[1] for row in prep.input_rows)
        got_rows = (prep.input_rows, prep.fact_rows, prep.rejection_rows)
        for into, got in zip(rows, got_rows, strict=True):
            into.extend(got)
        head = prep.head
    blob = repr((*rows, head, prep.run_id))
    return hashlib.sha256(blob.encode()).hexdigest()


def test_a_small_batch_chains_to_the_pinned_bytes() -> None:
    assert _digest(7, (0, "0" * 64)) == SMALL


def test_a_large_batch_chains_to_the_pinned_bytes() -> None:
    # Large enough for any bulk path (Arrow, vectorised encoding) to be the one taken.
    assert _digest(3000, (41, "ab" * 32)) == LARGE


def test_a_batch_chained_in_slices_gives_the_same_bytes() -> None:
    # How Store.append_stream stages a big batch: a slice at a time, one run.
    assert _digest(3000, (41, "ab" * 32), size=700) == LARGE
    assert _digest(7, (0, "0" * 64), size=3) == SMALL


SMALL = "c3121072193647ca7ff1181f10243cf01a9b376030d9a8d905c91a9234a41e76"
LARGE = "0834d0869de12e0c8b00829da56ce627a8cc12ba69b94dc04098965afa1c19b7"
