"""The storage seam: where a workspace's fact log lives, and the tables its nodes share.

Every workspace has its DuckDB file (fact_log/store.py), which the compiler, the checks and
search read. A `LogBackend` decides where the log itself is kept and what the file is to it:

- `backends/duckdb.py` (`DuckDBBackend`): the file is the log. One hash chain over the whole
  log, numbered in commit order; appends share a transaction (group commit); alerts, outbox
  and API keys live in the file too.
- `backends/postgres.py` (`PostgresBackend`): the log is in PostgreSQL (`log_db`, UAC_DB),
  one chain per subject, shared by many nodes; the file is this node's copy of it, brought
  up to date before each read. Alerts, their outbox, API keys and the job queue are the
  database's, shared by every node; the file keeps a copy of the alerts it read.

Code above the store asks `store.backend` and never which backend it is. The backend owns the
SQL of the log and of the shared tables; the layers that own a table (checks: alerts and
outbox; runtime: keys) keep its meaning (what an alert is, when to raise one) and call the
backend's generic operations with plain rows. Adding a table the nodes share: its DuckDB
table stays registered by its owner (fact_log/schema.py), its PostgreSQL DDL is registered
with `pg_schema.register` in a `backends/pg_<name>.py`, and the operations the owner needs
are added to the protocol here and to both backends (docs/contributing.md).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from uac.fact_log.addressing import Address
from uac.fact_log.backends import write_keys
from uac.fact_log.chain import Batch, Prepared, VerifyReport
from uac.fact_log.chain_keys import KeyRing
from uac.fact_log.rows import Fact
from uac.fact_log.rwlock import GatedConnection

if TYPE_CHECKING:
    from uac.fact_log.backends.pg_artifacts import Artifacts
    from uac.fact_log.backends.pg_jobs import QueueStatus
    from uac.fact_log.backends.pg_log import PgLog

# An alert row's columns, in this order in both backends (checks/alerts.py reads them).
ALERT_COLUMNS = (
    "id, tenant, scope, subject, check_name, severity, status, message, computation, fact_ids,"
    " record_keys, first_seen, last_seen, acknowledged_on, snoozed_until, resolved_on,"
    " why, next_step"
)
# A subject as a key: (tenant, scope, subject).
Key = tuple[str, str, str]
# (id, sink, payload, attempts) -> the row's new (status, attempts, next try, last error).
Send = Callable[[int, str, str, int], tuple[str, int, dt.datetime, str | None]]
# Erasures another node made of a subject: applied to this node's copy by the runtime.
ErasureHook = Callable[[Address, list[dict[str, Any]]], None]


Heads = tuple[tuple[int, str], int]  # the chain head (seq, hash) and the last input seq


class StoreFile(Protocol):
    """What a backend uses of the workspace file (fact_log/store.py's `Store`), named here so
    the backends need not import the store that opens them."""

    home: Path
    ring: KeyRing | None
    write_lock: threading.RLock
    _fact_cols: str
    _head: tuple[int, str] | None
    _input_seq: int | None

    @property
    def con(self) -> GatedConnection: ...

    def signer(self) -> KeyRing: ...

    def insert_rows(self, table: str, names: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Insert stored rows into one of the log's tables of the file (a copy's rows)."""
        ...

    # The DuckDB log's own steps (backends/duckdb.py): its chain head, chaining a batch,
    # writing it and its anchor, and a staged write (fact_log/staging.py).
    def _load_heads(self) -> Heads: ...

    def _chain(
        self, batch: Batch, heads: Heads, run_seq: int | None = None
    ) -> tuple[Prepared, Heads]: ...

    def _write_prepared(self, prep: Prepared) -> None: ...

    def _anchor(self, heads: Heads, at: Any, counted: bool = True) -> None: ...

    def _stream_into_file(self, batches: Iterable[Batch]) -> int: ...


class AlertWrite(Protocol):
    """One evaluation's alert changes, inside the transaction `AlertStorage.evaluating` opens
    (with the subjects locked against other evaluations). Rows are in ALERT_COLUMNS order."""

    def rows(self) -> list[tuple[Any, ...]]:
        """The stored alert rows of the subjects being evaluated."""
        ...

    def insert(self, values: Sequence[Sequence[Any]]) -> set[str]:
        """Insert new alerts; the ids actually inserted (another evaluation may have won)."""
        ...

    def rewrite(self, values: Sequence[Any], raised: bool) -> int:
        """Rewrite one alert's lifecycle columns; its occurrence number (raised: one more)."""
        ...

    def update(self, key: Key, ids: Sequence[str], sets: str, values: Sequence[Any]) -> None:
        """`UPDATE ... SET sets` (with `?` placeholders) of some alerts of one subject."""
        ...

    def outbox(self, entries: Sequence[tuple[str, str, str, str, int, str, str]]) -> None:
        """Queue deliveries: (tenant, scope, subject, alert id, occurrence, sink, payload)."""
        ...


class AlertStorage(Protocol):
    """Where alerts and their outbox rows are stored (checks/alerts.py decides what they say).

    Reads of alerts go to the workspace file's `alerts` table after `pull`: it is the table
    on DuckDB, and this node's copy of the shared one on PostgreSQL.
    """

    def evaluating(self, keys: Sequence[Key]) -> AbstractContextManager[AlertWrite]:
        """Lock the subjects' alerts, and write the changes in one transaction."""
        ...

    def rows(self, keys: Sequence[Key]) -> list[tuple[Any, ...]]:
        """The alert rows of the subjects as stored (the shared ones on PostgreSQL)."""
        ...

    def update(
        self,
        key: Key,
        ids: Sequence[str],
        sets: str,
        values: Sequence[Any],
        slot: write_keys.Slot | None = None,
    ) -> None:
        """One lifecycle update of some alerts of a subject (`sets` with `?` placeholders);
        `slot`: a keyed request's step, recorded in the same transaction with the updated
        rows (ALERT_COLUMNS, as lists) as its answer (write_keys.record_answer)."""
        ...

    def pull(self, where: Address | str) -> None:
        """Bring the file's alerts of a subject (or a tenant, by name) up to date."""
        ...

    def erase(
        self, key: Key, facts: set[str], every: bool, blank: str, today: dt.date
    ) -> tuple[list[str], int]:
        """Blank and resolve the shared alerts built on erased facts and drop their outbox
        rows: (alert ids, outbox rows); ([], 0) where the file is all there is (the runtime
        blanks the file's own rows)."""
        ...


class Outbox(Protocol):
    """The alert outbox the deliverer sends from (runtime/api/outbox.py)."""

    def pending(self) -> int:
        """Rows not yet delivered (nor dead-lettered)."""
        ...

    def deliver_due(
        self,
        now: dt.datetime,
        send: Send,
        stopped: Callable[[], bool],
        pool: Executor,
        workers: int,
    ) -> dt.datetime | None:
        """Send the due rows on `workers` threads of `pool` (until `stopped()`); when the next
        pending row falls due."""
        ...

    def collect(self, tenant: str, cutoff: dt.datetime) -> int:
        """Delete a tenant's rows delivered (or given up on) before cutoff; how many."""
        ...

    def counts(self) -> dict[str, int]:
        """Rows per status."""
        ...

    def rows(self, tenant: str, status: str | None, limit: int) -> list[tuple[Any, ...]]:
        """A tenant's rows, newest first: id, alert_id, sink, status, attempts, next_at,
        last_error, created_at, delivered_at."""
        ...

    def tenant_counts(self, tenant: str) -> dict[str, int]:
        """A tenant's rows per status."""
        ...

    def requeue(self, tenant: str, ids: list[int], now: dt.datetime) -> int:
        """Queue rows again, due now: the named ones (not delivered), or every dead one."""
        ...

    def drop(self, tenant: str, ids: list[int]) -> int:
        """Delete a tenant's named rows; how many."""
        ...


class LogBackend(Protocol):
    """Where a workspace's fact log lives (see the module docstring). `Store.backend`."""

    # Set by the runtime: applies erasures other nodes made, seen at a sync.
    on_erased: ErasureHook | None

    @property
    def name(self) -> str:
        """ "duckdb" or "postgres"."""
        ...

    @property
    def where(self) -> str | None:
        """The log's location, its password redacted; None when the workspace file is it."""
        ...

    @property
    def one_chain(self) -> bool:
        """True: one hash chain over the whole log, facts numbered in commit order (no
        gaps). False: one chain per subject; numbers increase along a chain, with gaps
        across subjects."""
        ...

    @property
    def one_writer(self) -> bool:
        """True: only the process holding the workspace file writes the log (its file lock
        says so), so a write this process is not running is not running anywhere. False:
        other nodes write the same log."""
        ...

    @property
    def artifacts(self) -> Artifacts | None:
        """Where published checkpoints are shared between nodes (None: they are not)."""
        ...

    @property
    def alerts(self) -> AlertStorage:
        """Where alerts are stored."""
        ...

    @property
    def outbox(self) -> Outbox:
        """The outbox the deliverer sends from."""
        ...

    def close(self) -> None:
        """Release what the backend holds (a pool of connections)."""
        ...

    # -- the log -----------------------------------------------------------------------------

    def sync(self, addr: Address, *, erasures: bool = True) -> None:
        """Before reading a subject: make the file hold every write of it the log has."""
        ...

    def sync_tenant(self, tenant: str) -> None:
        """Before a tenant-wide listing: `sync` every subject of the tenant."""
        ...

    def append(self, batch: Batch, return_facts: bool) -> list[Fact]:
        """Chain and commit one batch (safe from any thread); its facts if wanted."""
        ...

    def append_stream(self, batches: Iterable[Batch], seen: list[Address]) -> int:
        """A one-subject write too big to hold, all or nothing; the facts appended. `seen`
        holds the subject once the first batch has been read (fact_log/staging.py)."""
        ...

    def verify(self, chunk: int, anchor: dict[str, Any] | None) -> VerifyReport:
        """Walk the log's chains, sealed tables and anchors (and the file's copy, if one)."""
        ...

    def segment_check(self, addr: Address, ring: KeyRing) -> tuple[str | None, int]:
        """Before a compile folds a subject's new facts: (why the log as a whole does not
        verify, or None; the first seq whose keyed digest is checked)."""
        ...

    def anchors(self, every: bool) -> list[dict[str, Any]]:
        """The newest anchor (or all) as JSON-ready dicts for a witness."""
        ...

    def erase_shared(
        self,
        record: dict[str, Any],
        seqs: Sequence[int],
        input_ids: Sequence[str],
        every: bool,
        slot: write_keys.Slot | None = None,
    ) -> dict[str, Any] | None:
        """Blank erased rows in the shared log first (fact_log/backends/pg_erase.py) and copy
        what it chose; what it blanked, or None when the workspace file is the log. `slot`:
        a keyed request's step, recorded in the blanking transaction (`{"erasure": id}`)."""
        ...

    def erasure_done(self, erasure_id: str, report: dict[str, Any]) -> int | None:
        """Complete an erasure's report in the shared log; the shared tables vacuumed when
        this node completed it first, else None (and None where the file is the log)."""
        ...

    def missed_erasures(self) -> list[tuple[Address, list[dict[str, Any]]]]:
        """Erasures other nodes made of subjects this file holds, not applied here yet."""
        ...

    # -- the tables the nodes share ----------------------------------------------------------

    def service_rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (`?` placeholders) on a table every node shares (API keys)."""
        ...

    def hold(self, name: str) -> bool:
        """Take a hold on `name` that lives as long as this process (or until `let_go`):
        False when another live process holds it. A keyed write's claim
        (runtime/api/idempotency.py): a claim whose holder died is free to run again."""
        ...

    def let_go(self, name: str) -> None:
        """Drop a hold `hold` took."""
        ...

    def readiness(self) -> dict[str, str]:
        """What a load balancer needs to know: {} or {"log": where, "database": "ok"/why}."""
        ...

    def job_status(self, limit: int = 20, tenant: str | None = None) -> QueueStatus | None:
        """The shared compile-and-check job queue (of a tenant, or all), or None where there
        is none."""
        ...

    def job_log(self) -> PgLog:
        """The shared log that holds the job queue workers claim from (raises without one)."""
        ...
