"""The extraction policy (policy.toml) and the input check every message passes first.

Thresholds per source, which sources need evidence and how weak it may be, the message size
limit and which roles' messages may yield facts are data, not code: an operator tunes them in
`policy.toml` without touching the stages that read them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac.fact_log.errors import InputError
from uac.fact_log.parsed_data import load_toml

POLICY_FILE = Path(__file__).with_name("policy.toml")


@dataclass(frozen=True, slots=True)
class Policy:
    """Thresholds, evidence rules and limits read from policy.toml."""

    thresholds: dict[str, float]
    evidence_required: frozenset[str]
    weakest_tier: dict[str, str] = field(default_factory=dict)
    max_message_bytes: int = 65536
    fact_roles: frozenset[str] = frozenset({"user"})

    @classmethod
    def load(cls, path: Path | None = None) -> Policy:
        """Read a policy file (the packaged defaults when path is None)."""
        path = path or POLICY_FILE
        try:
            raw = load_toml(path)
            return cls(
                thresholds={k: float(v) for k, v in raw["thresholds"].items()},
                evidence_required=frozenset(raw["evidence"]["required_for"]),
                weakest_tier=dict(raw["evidence"].get("weakest_tier", {})),
                max_message_bytes=int(raw["limits"]["max_message_bytes"]),
                fact_roles=frozenset(raw["roles"]["fact_roles"]),
            )
        except (OSError, KeyError, TypeError, ValueError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"cannot read extraction policy {path}: {exc}") from None


_DEFAULT_POLICY: Policy | None = None


def default_policy() -> Policy:
    """The packaged policy, loaded once."""
    global _DEFAULT_POLICY
    if _DEFAULT_POLICY is None:
        _DEFAULT_POLICY = Policy.load()
    return _DEFAULT_POLICY


def check_source(source: str, policy: Policy) -> str:
    """Return source if the policy has a threshold for it, else raise InputError naming it."""
    if source not in policy.thresholds:
        known = ", ".join(sorted(policy.thresholds))
        raise InputError(f"unknown source {source!r}: use one of {known}")
    return source


def check_message(text: Any, policy: Policy) -> str:
    """Return text if it is an acceptable message, else raise InputError saying why."""
    if not isinstance(text, str):
        raise InputError(f"a message must be text, got {type(text).__name__}")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the message is not valid Unicode text (unpaired surrogate at position {exc.start})"
        ) from None
    if size > policy.max_message_bytes:
        raise InputError(
            f"the message is {size:,} bytes; the limit is {policy.max_message_bytes:,} "
            "(64 KiB): split it, or import it as a file"
        )
    if "\x00" in text:
        raise InputError("the message contains NUL characters; send plain text")
    if not text.strip():
        raise InputError("a message needs some text")
    return text
