"""What `loader.verified_files` and `loader.load` return: a checkpoint checked, or loaded.

Their own module: the loader is imported by every query's zygote, which needs neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uac.fact_log.addressing import Address


@dataclass(frozen=True)
class Checked:
    """A checkpoint whose files were verified, not imported: its data files only."""

    address: Address
    version: int
    directory: Path
    meta: dict[str, Any]

    @property
    def manifest(self) -> str:
        """The compact manifest for agent context."""
        return (self.directory / "manifest.md").read_text(encoding="utf-8")

    @property
    def provenance(self) -> dict[str, Any]:
        """Object path → fact ids, and each fact's derived status."""
        return json.loads((self.directory / "provenance.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Checkpoint(Checked):
    """A loaded checkpoint: its typed root object and metadata."""

    package: ModuleType

    @property
    def user(self) -> Any:
        """The root typed object."""
        return self.package.state.user

    @property
    def diagnostics(self) -> dict[str, Any]:
        """Contradictions, coercion failures and renames found by the fold."""
        return json.loads((self.directory / "diagnostics.json").read_text(encoding="utf-8"))
