"""Constraint checks and alerts over compiled typed state.

- `checks.library`: the built-in checks, `REGISTRY` (name → function) as the catalog names them
- `checks.data/*.toml`: versioned reference data (passport validity, visas, drugs, foods)
- `checks.alerts`: `evaluate`, `list_alerts`, `acknowledge`, `snooze` (the alert lifecycle)
- `checks.sinks`: delivery to a callback, JSON lines or an HTTP webhook
- `checks.rules`: user rules stored as facts (threshold, reminder, forbid)
- `checks.scheduler`: `run_once` and `serve` for periodic evaluation
"""

from checks.alerts import (
    EvaluationResult,
    acknowledge,
    evaluate,
    get_alert,
    list_alerts,
    snooze,
)
from checks.library import REGISTRY
from checks.model import DEFAULT_CONFIG, Alert, AlertDraft, CheckConfig, fingerprint
from checks.rules import RuleError, add_rule, load_rules, rule_checks, validate_rule
from checks.sinks import CallbackSink, JsonLinesSink, WebhookSink, deliver

__all__ = [
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
    "load_rules",
    "rule_checks",
    "snooze",
    "validate_rule",
]
