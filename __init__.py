"""uac: a typed "user-as-code" memory for AI agents.

The public surface is this module: `from uac import Memory`. Everything below it
(`uac.fact_log`, `uac.compiler`, `uac.checks`, `uac.runtime`) is internal and free to move.

Names are resolved on first use, so `import uac` (and every CLI call) stays cheap: a thin
client that only talks to a server never imports DuckDB, the compiler or the sandbox.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

# public name -> module that defines it
_EXPORTS = {
    "AgentTools": "uac.runtime.api.tools",
    "Client": "uac.runtime.api.client",
    "Memory": "uac.runtime.api.memory",
    "ImportResult": "uac.runtime.api.memory",
    "Learned": "uac.runtime.api.memory",
    "Explanation": "uac.runtime.api.memory",
    "UacError": "uac.fact_log.errors",
    "InputError": "uac.fact_log.errors",
    "NotFound": "uac.fact_log.errors",
    "Verbs": "uac.runtime.api.verb_methods",
}

__all__ = [
    "AgentTools",
    "Client",
    "Explanation",
    "ImportResult",
    "InputError",
    "Learned",
    "Memory",
    "NotFound",
    "UacError",
    "Verbs",
    "__version__",
]

if TYPE_CHECKING:
    from uac.fact_log.errors import InputError, NotFound, UacError
    from uac.runtime.api.client import Client
    from uac.runtime.api.memory import Explanation, ImportResult, Learned, Memory
    from uac.runtime.api.tools import AgentTools
    from uac.runtime.api.verb_methods import Verbs


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'uac' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
