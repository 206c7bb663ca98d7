"""The workspace secret that keys tamper evidence: a key ring in a file outside the database.

Plain SHA-256 chains only catch accidents: whoever can write the DuckDB file can recompute
them. Every stored digest (fact links, table rows, anchors, checkpoint signatures) is
therefore an HMAC-SHA256 under a key kept in `<home>/keys/chain.key` (mode 0600), or in the
file UAC_CHAIN_KEY_FILE names for deployments that keep secrets elsewhere. A digest is
written as `<key id>:<hex>` so rotation only adds a key: rows signed earlier keep verifying
with the key they name, and new rows use the current one.

The file is JSON, `{"current": "k2", "keys": {"k1": "<hex>", "k2": "<hex>"}, "binds": 2}`,
replaced atomically on rotation. `binds` (format 2) says the key has keyed a log: every log
it keys carries a signed keying record (fact_log/tamper.py) naming the key's fingerprint
(`key_id`) and the log's genesis. With such a key, a log that holds facts but no keying
record was stripped of it, never "not keyed yet" (an attacker who can write the database
cannot reset keying). A file without `binds` (written before format 2) still lets its first
open key a log that has none, once; that open upgrades the file.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uac.fact_log.errors import WorkspaceError

ENV = "UAC_CHAIN_KEY_FILE"


def key_path(home: Path) -> Path:
    """Where a workspace's key ring lives: UAC_CHAIN_KEY_FILE, else <home>/keys/chain.key."""
    override = os.environ.get(ENV)
    return Path(override).expanduser() if override else Path(home) / "keys" / "chain.key"


@dataclass(frozen=True, slots=True)
class KeyRing:
    """Every key a workspace has used; `current` signs new digests."""

    path: Path
    current: str
    keys: dict[str, bytes]
    binds: bool = True  # format 2: a log it keys without a keying record is broken

    @classmethod
    def load(cls, home: Path) -> KeyRing | None:
        """The workspace's key ring, or None if its file does not exist."""
        path = key_path(home)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            keys = {kid: bytes.fromhex(hexkey) for kid, hexkey in raw["keys"].items()}
            ring = cls(path, raw["current"], keys, raw.get("binds") == 2)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise WorkspaceError(f"chain key file {path} is unreadable or corrupted") from None
        if ring.current not in keys:
            raise WorkspaceError(f"chain key file {path} names no current key")
        return ring

    @classmethod
    def create(cls, home: Path) -> KeyRing:
        """Make a fresh key ring file (0600, in a 0700 directory); never overwrites one.

        The file appears complete or not at all (written aside, then hard-linked into place).
        If another process sharing the key file (UAC_CHAIN_KEY_FILE) made it first, its ring
        is the one to use: two nodes binding to one log at the same instant must agree.
        """
        path = key_path(home)
        import secrets  # a key is made by a write; a read never pays for the module's import

        ring = cls(path, "k1", {"k1": secrets.token_bytes(32)})
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            tmp = ring._write_aside()
        except OSError as exc:
            raise WorkspaceError(f"cannot create chain key file {path}: {exc.strerror}") from None
        try:
            os.link(tmp, path)
        except FileExistsError:
            existing = cls.load(home)
            if existing is None:  # created and removed again: nothing sane to adopt
                raise WorkspaceError(f"chain key file {path} vanished while created") from None
            return existing
        except OSError as exc:
            raise WorkspaceError(f"cannot create chain key file {path}: {exc.strerror}") from None
        finally:
            tmp.unlink(missing_ok=True)
        return ring

    def rotated(self) -> KeyRing:
        """A ring with a new current key (old keys kept), written atomically to the file."""
        number = 1 + max(int(k[1:]) for k in self.keys if k[1:].isdigit())
        kid = f"k{number}"
        import secrets

        ring = KeyRing(self.path, kid, {**self.keys, kid: secrets.token_bytes(32)})
        os.replace(ring._write_aside(), self.path)
        return ring

    def bound(self) -> KeyRing:
        """This ring in format 2 (written atomically if the file was older); returns it."""
        if self.binds:
            return self
        ring = KeyRing(self.path, self.current, self.keys, True)
        os.replace(ring._write_aside(), self.path)
        return ring

    def key_id(self) -> str:
        """A fingerprint of the ring's first key (never its bytes): which key keys a log."""
        first = min(self.keys, key=lambda k: (len(k), k))
        return first + ":" + hmac.digest(self.keys[first], b"uac-key-id", "sha256").hex()[:16]

    def _write_aside(self) -> Path:
        """This ring written and synced to a new 0600 file beside its path (for a rename)."""
        import secrets

        tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(self._text())
            out.flush()
            os.fsync(out.fileno())
        return tmp

    def _text(self) -> str:
        keys = {kid: key.hex() for kid, key in sorted(self.keys.items())}
        body: dict[str, Any] = {"current": self.current, "keys": keys}
        if self.binds:
            body["binds"] = 2
        return json.dumps(body, indent=1) + "\n"

    def sign(self, message: str | bytes) -> str:
        """`<current key id>:<hex HMAC-SHA256>` of a message."""
        data = message.encode("utf-8") if isinstance(message, str) else message
        return self.current + ":" + hmac.digest(self.keys[self.current], data, "sha256").hex()

    def check(self, message: str | bytes, mac: str | None) -> bool:
        """True when mac is a digest of message under the key it names (constant time)."""
        if not mac or ":" not in mac:
            return False
        kid, _, _ = mac.partition(":")
        key = self.keys.get(kid)
        if key is None:
            return False
        data = message.encode("utf-8") if isinstance(message, str) else message
        expected = kid + ":" + hmac.digest(key, data, "sha256").hex()
        return hmac.compare_digest(expected, mac)


def row_message(table: str, row: Sequence[Any]) -> str:
    """The bytes a table row's keyed digest covers: the table name and every cell, in order."""
    # Here, not at import: a read that only loads the ring (a one-shot query) never imports
    # the values module and `decimal`.
    from uac.fact_log.values import digest_cell

    return table + ":[" + ",".join(map(digest_cell, row)) + "]"
