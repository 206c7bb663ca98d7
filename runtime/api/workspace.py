"""What the services behind `Memory` share: who calls, how a write is appended, delegation.

`Memory` (runtime/api/memory.py) is a facade over services that each declare, in their
constructor, what they use (the store, the catalog, the `Reactor`, the caller, another
service). Three small pieces are shared by them all and live here:

* `Caller`: one tenant's view of the open workspace — tenant, actor, whether writes react,
  who hears long work's progress — and the resolution of a subject within the tenant;
* `Appender`: the one path every write takes — the scope policy, the store's append (which
  queues the write's reaction in the same transaction), then the `Reactor`;
* `via`: a facade attribute that is a service's method (same signature, same docstring), so
  `Memory`'s public methods are its verbs, each written once, in its service.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from uac.fact_log.addressing import Address, parse_subject
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.progress_callback import Report
from uac.fact_log.scopes import check_policy
from uac.fact_log.store import Batch, Fact, Store
from uac.runtime.api.reactor import Reaction, Reactor


@dataclass(slots=True)
class Caller:
    """One tenant's view of an open workspace: whose calls these are, and how writes react."""

    tenant: str
    actor: str = "api"
    # every write recompiles the subject and runs its checks (False: back-fills; see Memory)
    react: bool = True
    # who hears long work's progress when a call names no one (the service's request view)
    progress: Report | None = None

    def address(self, subject: str | Address) -> Address:
        """Resolve 'alice' / 'user:alice' / 'group:x' / 'tenant' within this tenant."""
        if isinstance(subject, Address):
            if subject.tenant != self.tenant:
                raise InputError(
                    f"subject {subject} belongs to tenant {subject.tenant!r}, not {self.tenant!r}"
                )
            return subject
        return parse_subject(subject, self.tenant)


class Appender:
    """Appends a write's batch under the scope policy and hands the write to the Reactor."""

    def __init__(self, store: Store, catalog: Catalog, reactor: Reactor, caller: Caller):
        self.store = store
        self.catalog = catalog
        self.reactor = reactor
        self.caller = caller

    def append(self, batch: Batch, *, return_facts: bool = True) -> list[Fact]:
        """Append one write's batch if the scope policy allows every fact in it (else nothing).

        The append queues the write's reaction in the same transaction (the reactions queue).
        """
        check_policy(self.catalog, batch.address, batch.facts)
        batch.covered = not self.caller.react  # marked covered in the write's own commit
        return self.store.append(batch, return_facts=return_facts)

    def wrote(
        self, subject: str | Address, now: dt.datetime | None, batch: Batch | None = None
    ) -> Reaction:
        """React to a committed write (compile and check, unless deferred or react=False);
        `batch`: the write's one batch, when its commit may have settled it (`Batch.settled`)."""
        settled = batch is not None and batch.settled
        return self.reactor.wrote(
            self.caller.address(subject), now, react=self.caller.react, settled=settled
        )


S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R", covariant=True)


class via(Generic[S, P, R]):
    """A facade attribute that is the method of the service held in attribute `service`.

    On the class it is a function that takes the facade first and calls its service's method
    (so `Memory.checkpoint(mem, "alice")` works, and `inspect.signature(Memory.set)` is
    `Writer.set`'s, `self` included, through `functools.wraps`); on an instance, the bound
    method of that instance's service. A type checker sees the method's own signature through
    the overloads.
    """

    def __init__(self, service: str, method: Callable[Concatenate[S, P], R]):
        self.service = service
        self.method = method
        self.__doc__ = method.__doc__
        self.name = name = method.__name__

        @functools.wraps(method)
        def on_facade(facade: Any, /, *args: Any, **kwargs: Any) -> Any:
            return getattr(getattr(facade, service), name)(*args, **kwargs)

        self.unbound = on_facade

    @overload
    def __get__(self, obj: None, owner: type) -> Callable[Concatenate[S, P], R]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: object, owner: type) -> Any:
        if obj is None:
            return self.unbound
        return getattr(getattr(obj, self.service), self.name)
