"""Constraint checks and alerts over compiled typed state.

- `checks.library`: the built-in checks, one module per domain, and `REGISTRY` (name → function)
  as the catalog names them; reference data lives in `uac.fact_log.reference` (data/*.toml)
- `checks.alerts`: `evaluate`, `list_alerts`, `acknowledge`, `snooze` (the alert lifecycle)
- `checks.sinks`: delivery to a callback, JSON lines or an HTTP webhook
- user rules (threshold, reminder, forbid) are validated in `uac.fact_log.user_rules` and compiled
  into each subject's generated `constraints.RULES`; `evaluate` runs them with the checks
- `checks.scheduler`: `run_once` and `serve` for periodic evaluation
- `checks.schema`: the `alerts` and `jobs` tables (registered by `checks.alerts`, so any use
  of the checks migrates them when a workspace opens)
- `checks.listing`: the stored alerts as a listing shows them (the one SELECT)

Names are resolved on first use (as `uac` does): a read that lists alerts imports the
listing, not the library of checks, the scheduler or the sinks.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# public name -> module that defines it
_EXPORTS = {
    "EvaluationResult": "uac.checks.alerts",
    "acknowledge": "uac.checks.alerts",
    "evaluate": "uac.checks.alerts",
    "get_alert": "uac.checks.alerts",
    "list_alerts": "uac.checks.alerts",
    "snooze": "uac.checks.alerts",
    "REGISTRY": "uac.checks.library",
    "DEFAULT_CONFIG": "uac.checks.model",
    "Alert": "uac.checks.model",
    "AlertDraft": "uac.checks.model",
    "CheckConfig": "uac.checks.model",
    "fingerprint": "uac.checks.model",
    "CHECKS": "uac.checks.schema",
    "CallbackSink": "uac.checks.sinks",
    "JsonLinesSink": "uac.checks.sinks",
    "WebhookSink": "uac.checks.sinks",
    "deliver": "uac.checks.sinks",
    "RuleError": "uac.fact_log.user_rules",
    "add_rule": "uac.fact_log.user_rules",
    "validate_rule": "uac.fact_log.user_rules",
}

if TYPE_CHECKING:
    from uac.checks.alerts import (
        EvaluationResult,
        acknowledge,
        evaluate,
        get_alert,
        list_alerts,
        snooze,
    )
    from uac.checks.library import REGISTRY
    from uac.checks.model import DEFAULT_CONFIG, Alert, AlertDraft, CheckConfig, fingerprint
    from uac.checks.schema import CHECKS
    from uac.checks.sinks import CallbackSink, JsonLinesSink, WebhookSink, deliver
    from uac.fact_log.user_rules import RuleError, add_rule, validate_rule

__all__ = [
    "CHECKS",
    "DEFAULT_CONFIG",
    "REGISTRY",
    "Alert",
    "AlertDraft",
    "CallbackSink",
    "CheckConfig",
    "EvaluationResult",
    "JsonLinesSink",
    "RuleError",
    "WebhookSink",
    "acknowledge",
    "add_rule",
    "deliver",
    "evaluate",
    "fingerprint",
    "get_alert",
    "list_alerts",
    "snooze",
    "validate_rule",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'uac.checks' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
