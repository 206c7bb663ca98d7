"""Tenant, scope and subject: the address every read and write names."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from uac.fact_log.errors import InputError

Scope = Literal["user", "group", "tenant"]

# fullmatch: `$` would also accept a trailing newline ("alice\n").
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,127}")
TENANT_SUBJECT = "tenant"
SUBJECT_FORMS = "'alice', 'user:alice', 'group:NAME' or 'tenant'"


@dataclass(frozen=True, slots=True, order=True)
class Address:
    """One subject inside one tenant: the unit of isolation."""

    tenant: str
    scope: Scope
    subject: str

    def __str__(self) -> str:
        if self.scope == "tenant":
            return "tenant"
        return f"{self.scope}:{self.subject}"


def check_name(kind: str, value: str) -> str:
    """Return value if it is a valid tenant/subject name, else raise InputError."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise InputError(
            f"invalid {kind} name {value!r}: use 1-128 letters, digits, '.', '_', '@' or '-', "
            "starting with a letter or digit"
        )
    return value


def parse_subject(text: str, tenant: str = "default") -> Address:
    """Parse 'alice', 'user:alice', 'group:NAME' or 'tenant' into an Address."""
    check_name("tenant", tenant)
    if not isinstance(text, str) or not text:
        raise InputError(f"a subject is required: {SUBJECT_FORMS}")
    if text == "tenant":
        return Address(tenant, "tenant", TENANT_SUBJECT)
    if ":" in text:
        prefix, _, name = text.partition(":")
        if prefix not in ("user", "group"):
            raise InputError(f"unknown subject form {text!r}: use {SUBJECT_FORMS}")
        return Address(tenant, prefix, check_name("subject", name))  # type: ignore[arg-type]
    return Address(tenant, "user", check_name("subject", text))


def default_home() -> Path:
    """`UAC_HOME`, else `$XDG_DATA_HOME/uac`, else `~/.local/share/uac`."""
    if os.environ.get("UAC_HOME"):
        return Path(os.environ["UAC_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "uac"
