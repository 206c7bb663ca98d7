"""`uac preview`: check a plan before acting — what a write would raise and clear."""

from __future__ import annotations

import argparse
import json
from typing import Any

from uac.fact_log.errors import InputError
from uac.runtime.cli.common import _call, _out, _print_alert, _print_json, _short


def cmd_preview(args: argparse.Namespace) -> int:
    facts: list[dict[str, Any]] = [{"path": p, "value": v} for p, v in args.set or ()]
    for collection, text in args.record or ():
        try:
            record = json.loads(text)
        except ValueError as exc:
            raise InputError(f"--record {collection}: not a JSON object ({exc})") from None
        facts.append({"path": collection, "record": record})
    if args.message is None and not facts:
        raise InputError(
            'nothing to preview: give a message (uac preview alice "I fly to Tokyo on 28 May") '
            "or --set PATH VALUE / --record COLLECTION JSON"
        )
    result = _call(
        args,
        "preview",
        args.subject,
        text=args.message,
        facts=facts or None,
        at=args.at,
        today=args.today,
        session=args.session,
    )
    if args.json:
        _print_json(result)
        return 0
    raised, cleared = result["raised"], result["cleared"]
    _out(
        f"{result['subject']} as of {result['today']}: {len(raised)} would be raised, "
        f"{len(cleared)} cleared, {len(result['still_open'])} still open (nothing was written)"
    )
    for alert in raised:
        _print_alert(alert)
        _out(f"      {alert['computation']}")
    for alert in cleared:
        _out(f"cleared: {alert['message']} [{alert['id']}]")
    for item in result["state"]:
        _out(f"would record: {item['expr']} = {_short(json.dumps(item['value']), 100)}")
    for reason in result["refused"]:
        _out(f"would refuse: {reason}")
    for name, error in sorted(result["errors"].items()):
        _out(f"check {name} failed: {error}")
    return 0
