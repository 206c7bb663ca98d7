"""`Workspace`: the state every verb family of `Memory` reads, declared in one place.

`Memory` (runtime/api/memory.py) is built from its verb families (writes.py, reads.py,
alerts.py, recall.py, preview.py); each family subclasses `Workspace` and reaches the open
workspace only through what is declared here: the store, the catalog, the tenant and actor
of this view, the `Reactor` that compiles and checks after writes, and the three operations
every write shares (resolve a subject, append a batch under the scope policy, hand the
committed write to the Reactor). A family that calls another's verb declares it in its own
`TYPE_CHECKING` block, so every dependency is written down and checked by the type checker.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from uac.fact_log.addressing import Address, parse_subject
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.progress_callback import Report
from uac.fact_log.scopes import check_policy
from uac.fact_log.store import Batch, Fact, Store
from uac.runtime.api.reactor import Reaction, Reactor

if TYPE_CHECKING:
    from uac.fact_log.extraction.llm import LLM, LLMSettings
    from uac.runtime.search.embedders import Embedder
    from uac.runtime.search.index import SearchIndex


class Workspace:
    """One tenant's view of an open workspace (the attributes `Memory.__init__` sets)."""

    home: Path
    tenant: str
    actor: str
    store: Store
    catalog: Catalog
    # react: every write recompiles the subject and runs its checks (see Memory)
    react: bool
    # who hears long work's progress when a call names no one (the service's request view)
    progress: Report | None
    _reactor: Reactor  # compiles and checks after writes; one per open workspace
    _llm_setting: LLM | LLMSettings | None  # the extractor, resolved on a write's first use
    _llm: LLM | bool | None
    _embedder: Embedder | None  # None: the built-in hashing embedder
    _search: list[SearchIndex]  # the one index of the open workspace, built on first use
    _search_lock: threading.RLock

    def address(self, subject: str | Address) -> Address:
        """Resolve 'alice' / 'user:alice' / 'group:x' / 'tenant' within this tenant."""
        if isinstance(subject, Address):
            if subject.tenant != self.tenant:
                raise InputError(
                    f"subject {subject} belongs to tenant {subject.tenant!r}, not {self.tenant!r}"
                )
            return subject
        return parse_subject(subject, self.tenant)

    def _append(self, batch: Batch, *, return_facts: bool = True) -> list[Fact]:
        """Append one write's batch if the scope policy allows every fact in it (else nothing).

        The append queues the write's reaction in the same transaction (the reactions queue).
        """
        check_policy(self.catalog, batch.address, batch.facts)
        batch.covered = not self.react  # marked covered in the write's own commit
        return self.store.append(batch, return_facts=return_facts)

    def _wrote(self, subject: str | Address, now: dt.datetime | None) -> Reaction:
        """React to a committed write (compile and check, unless deferred or react=False)."""
        return self._reactor.wrote(self.address(subject), now, react=self.react)
