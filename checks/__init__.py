"""Constraint checks and alerts over compiled typed state.

- `checks.library`: the built-in checks, one module per domain, and `REGISTRY` (name → function)
  as the catalog names them; reference data lives in `uac.fact_log.reference` (data/*.toml)
- `checks.alerts`: `evaluate`, `list_alerts`, `acknowledge`, `snooze` (the alert lifecycle)
- `checks.sinks`: delivery to a callback, JSON lines or an HTTP webhook
- user rules (threshold, reminder, forbid) are validated in `uac.fact_log.user_rules` and compiled
  into each subject's generated `constraints.RULES`; `evaluate` runs them with the checks
- `checks.scheduler`: `run_once` and `serve` for periodic evaluation
- `checks.schema`: the `alerts` and `jobs` tables (registered here, so any use of the checks
  migrates them when a workspace opens)
"""

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
