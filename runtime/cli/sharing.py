"""Commands that share between scopes (runtime/api/sharing.py): member, promote, demote."""

from __future__ import annotations

import argparse
from typing import Any

from uac.fact_log.errors import InputError
from uac.runtime.cli.common import (
    _call,
    _machine,
    _out,
    _print_alerts,
    _table,
    _when,
)


def cmd_member(args: argparse.Namespace) -> int:
    if args.action == "list":
        rows = _call(args, "members", args.subject, at=args.at)
        if _machine(args, rows):
            return 0
        _table(
            [
                (r["group"], r["user"], _when(r["valid_from"]), _when(r["valid_to"]), r["fact_id"])
                for r in rows
            ],
            ("group", "user", "from", "to", "fact"),
        )
        return 0
    if args.user is None:
        raise InputError(f"name the user: uac member {args.action} {args.subject} alice")
    if args.action == "add":
        fact = _call(
            args,
            "member-add",
            args.subject,
            user=args.user,
            valid_from=args.from_,
            valid_to=args.to,
        )
    else:
        fact = _call(args, "member-remove", args.subject, user=args.user, at=args.at)
    if _machine(args, fact):
        return 0
    verb = "joins" if args.action == "add" else "leaves"
    _out(f"{fact['id']}  {args.user} {verb} {args.subject}")
    _print_alerts(fact)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"fact_id": args.fact_id, "group": args.group}
    if args.command == "demote":
        params["reason"] = args.reason
    fact = _call(args, args.command, args.subject, **params)
    if _machine(args, fact):
        return 0
    done = "promoted to" if args.command == "promote" else "withdrawn from"
    _out(f"{fact['id']}  {args.fact_id} {done} {args.group} by {args.subject}")
    _print_alerts(fact)
    return 0
