"""The console's session cookies: signed with HMAC-SHA256 under a per-server secret.

A cookie holds the key's id, the tenant, an expiry and a nonce; nothing secret is in it
and nothing is stored server-side, so a restart (a new secret) logs everybody out. The
CSRF token of a session (or of a login form) is derived from its nonce.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

SESSION_SECONDS = 8 * 3600


class Sessions:
    """Signs and checks session cookies with a per-server secret."""

    def __init__(self, secret: bytes | None = None):
        self.secret = secret or secrets.token_bytes(32)

    def _mac(self, data: bytes) -> str:
        return _b64(hmac.new(self.secret, data, hashlib.sha256).digest())

    def issue(self, key_id: str, tenant: str, now: float) -> str:
        """A signed cookie value for a key's session."""
        body = {"k": key_id, "t": tenant, "e": int(now) + SESSION_SECONDS}
        body["n"] = secrets.token_urlsafe(12)
        data = _b64(json.dumps(body, separators=(",", ":")).encode())
        return f"{data}.{self._mac(data.encode())}"

    def read(self, value: str | None, now: float) -> dict[str, Any] | None:
        """The session a cookie holds, or None when it is missing, forged or expired."""
        if not value or "." not in value or len(value) > 1000:
            return None
        data, mac = value.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(data.encode())):
            return None
        try:
            body = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        except ValueError:
            return None
        if not isinstance(body, dict) or body.get("e", 0) < now:
            return None
        return body

    def csrf(self, nonce: str) -> str:
        """The CSRF token of a session (or of a login form's nonce)."""
        return self._mac(b"csrf:" + nonce.encode())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
