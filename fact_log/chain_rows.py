"""The log's row layouts and the checks of a stored fact row: what reading and verifying
the log needs of the chain, apart from the write path's batches (fact_log/chain.py, which
imports these from here), so that a `uac verify` that reads the file without the store
(fact_log/file_verify.py) does not build the write path's record classes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from uac.fact_log.values import canonical_json, json_string, sha256

if TYPE_CHECKING:
    from uac.fact_log.chain_keys import KeyRing

GENESIS = "0" * 64


# The columns of the first format, frozen: schema step 1 creates them; later steps add more.
# Each is (name, SQL type, Arrow type name): the store builds the Arrow type when it first
# writes a batch through Arrow, so reading the log never imports pyarrow.
FACT_V1: tuple[tuple[str, str, str], ...] = (
    ("seq", "BIGINT NOT NULL", "int64"),
    ("id", "VARCHAR NOT NULL", "string"),
    ("tenant", "VARCHAR NOT NULL", "string"),
    ("scope", "VARCHAR NOT NULL", "string"),
    ("subject", "VARCHAR NOT NULL", "string"),
    ("op", "VARCHAR NOT NULL", "string"),
    ("kind", "VARCHAR NOT NULL", "string"),
    ("path", "VARCHAR NOT NULL", "string"),
    ("record_key", "VARCHAR", "string"),
    ("value", "VARCHAR", "string"),
    ("text", "VARCHAR", "string"),
    ("source", "VARCHAR NOT NULL", "string"),
    ("confidence", "DOUBLE NOT NULL", "float64"),
    ("evidence", "VARCHAR", "string"),
    ("valid_from", "TIMESTAMP", "timestamp"),
    ("valid_to", "TIMESTAMP", "timestamp"),
    ("recorded_at", "TIMESTAMP NOT NULL", "timestamp"),
    ("input_id", "VARCHAR", "string"),
    ("session_id", "VARCHAR", "string"),
    ("run_id", "VARCHAR", "string"),
    ("actor", "VARCHAR", "string"),
    ("content_hash", "VARCHAR NOT NULL", "string"),
    ("prev_hash", "VARCHAR NOT NULL", "string"),
    ("hash", "VARCHAR NOT NULL", "string"),
)
# `mac`: `<key id>:<HMAC of the link>` (fact_log/chain_keys.py); NULL only before the workspace
# had a key. The plain `hash` (and the id derived from it) stays key-independent, so the
# generated code of the same log is the same in every workspace.
_MAC = ("mac", "VARCHAR", "string")
FACT_COLUMNS = (*FACT_V1, _MAC)
# The columns a fact's content hash covers, in order (everything but seq, id and the chain).
CONTENT_COLUMNS = tuple(name for name, _, _ in FACT_V1[2:-3])

INPUT_V1: tuple[tuple[str, str, str], ...] = (
    ("seq", "BIGINT NOT NULL", "int64"),
    ("id", "VARCHAR NOT NULL", "string"),
    ("tenant", "VARCHAR NOT NULL", "string"),
    ("scope", "VARCHAR NOT NULL", "string"),
    ("subject", "VARCHAR NOT NULL", "string"),
    ("kind", "VARCHAR NOT NULL", "string"),
    ("name", "VARCHAR", "string"),
    ("role", "VARCHAR", "string"),
    ("content", "VARCHAR NOT NULL", "string"),
    ("content_hash", "VARCHAR NOT NULL", "string"),
    ("source", "VARCHAR NOT NULL", "string"),
    ("session_id", "VARCHAR", "string"),
    ("observed_at", "TIMESTAMP NOT NULL", "timestamp"),
    ("recorded_at", "TIMESTAMP NOT NULL", "timestamp"),
)
INPUT_COLUMNS = (*INPUT_V1, _MAC)
REJECTION_COLUMNS = (
    "id", "tenant", "scope", "subject", "input_id", "path", "reason", "detail", "recorded_at"
)  # fmt: skip
SCHEMA_COLUMNS = (
    "tenant", "scope", "subject", "path", "version", "fields", "input_id", "recorded_at"
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of walking the hash chain, the sealed tables and the anchors."""

    ok: bool
    checked: int
    broken_seq: int | None = None
    broken_id: str | None = None
    problem: str | None = None
    # Findings outside the chain: the first bad row per sealed table, truncation, keys.
    problems: tuple[str, ...] = ()
    keyed_from: int | None = None  # the first seq whose link carries a keyed digest


def content_hash(row: Sequence[Any]) -> str:
    """Hash of a fact's content columns (CONTENT_COLUMNS order): SHA-256 of a JSON array."""
    return sha256("[" + ",".join(map(_cell, row)) + "]")


def _cell(value: Any) -> str:
    # One element of the hashed JSON array: text as JSON strings, times ISO, floats by repr.
    if value is None:
        return "null"
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, dt.datetime):
        return json_string(value.isoformat())
    if isinstance(value, float):
        return json_string(repr(value))
    return canonical_json(value)


def link_hash(seq: int, prev_hash: str, chash: str) -> str:
    """Hash linking one row to the previous one."""
    return sha256(f"{seq}:{prev_hash}:{chash}")


def fact_id(link: str) -> str:
    """A fact's stable external id, derived from its chain hash."""
    return "f_" + link[:20]


def fact_problem(
    row: Sequence[Any],
    prev: str,
    ring: KeyRing | None,
    erased: Mapping[int, tuple[str, str]] | None = None,
) -> str | None:
    """Why a stored fact row (FACT_COLUMNS order) does not verify after `prev`, or None.

    Checks its content hash, its link to `prev`, its id and, given a ring, its keyed digest.
    A row a legal erase blanked verifies only if `erased` (the sealed erasure records: seq ->
    (content hash, hash of what is left)) names it exactly as it is now.
    """
    seq, fid, chash, prev_hash, link, mac = row[0], row[1], row[-4], row[-3], row[-2], row[-1]
    if prev_hash != prev:
        return "its link to the previous row does not match (a row was changed or removed)"
    actual = content_hash(row[2:-4])
    if actual != chash and (erased is None or erased.get(seq) != (chash, actual)):
        return "its content does not match its content hash (the row was changed)"
    if link_hash(seq, prev_hash, chash) != link:
        return "its chain hash does not match"
    if fact_id(link) != fid:
        return "its id does not match its chain hash"
    if ring is not None and not ring.check(f"fact:{seq}:{link}", mac):
        return "its keyed digest does not match (the chain was rewritten without the key)"
    return None
