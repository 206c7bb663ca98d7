"""Commands of data governance and access: erase, erasures, gc, keys (and rotate-chain)."""

from __future__ import annotations

import argparse
from pathlib import Path

from uac.fact_log.errors import InputError
from uac.runtime.cli.common import (
    _call,
    _client,
    _err,
    _fields,
    _listing,
    _machine,
    _memory,
    _out,
    _print_json,
    _progress,
    _short,
    _table,
    _when,
)


def cmd_erase(args: argparse.Namespace) -> int:
    params = {"fact_ids": args.fact or None, "all": args.all or None, "reason": args.reason}
    client = _client(args)
    if client is not None:
        report = client.call("erase", args.subject, **params)
    else:
        from uac.runtime.api.memory import Memory

        bar = _progress(args, "erasing", quiet=args.json)
        with Memory(args.home, args.tenant, actor="cli", react=False) as mem:
            report = mem.erase(
                args.subject,
                args.fact,
                all=args.all,
                reason=args.reason,
                progress=bar.report,
            )
        bar.close()  # only after a finished erase: a refused one printed no progress
    if args.json:
        _print_json(report)
        return 0
    where = report["where"]
    _out(f"erased {report['subject']} ({report['what']}): report {report['id']}")
    _out(f"  by {report['by']} at {_when(report['at'])}; reason: {report['reason']}")
    _out("  " + ", ".join(f"{k} {v}" for k, v in where.items()))
    version = report.get("checkpoint")
    _out(f"  checkpoint: {'v' + str(version) if version else 'none'} (older versions deleted)")
    _out(f"  verify: {'ok' if report.get('verified') else 'FAILED (run uac verify)'}")
    return 0


def cmd_erasures(args: argparse.Namespace) -> int:
    reports = _call(args, "erasures", args.subject, **_fields(args))
    if _machine(args, reports):
        return 0
    rows = [
        (r["id"], _when(r["at"]), r["by"], r["what"], r["where"]["facts"], _short(r["reason"], 40))
        for r in reports
    ]
    _table(rows, ("report", "at", "by", "what", "facts", "reason"))
    return 0


def cmd_gc(args: argparse.Namespace) -> int:
    out = _call(args, "gc", keep=args.keep, older_than_days=args.older_than)
    if args.json:
        _print_json(out)
    else:
        _out("gc: dropped " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in out.items()))
    return 0


def cmd_rotate_chain_key(args: argparse.Namespace) -> int:
    from uac.fact_log.chain_keys import KeyRing, key_path

    ring = KeyRing.load(Path(args.home))
    if ring is None:
        raise InputError(f"no chain key file at {key_path(Path(args.home))}; run 'uac init' first")
    ring = ring.rotated()
    if _machine(args, {"key": ring.current, "path": str(ring.path)}):
        return 0
    _out(f"chain key rotated: new rows are signed with {ring.current} ({ring.path});")
    _out("older keys stay in the file to verify older rows; a running uac serve picks it up")
    _out("when restarted")
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    if args.action == "rotate-chain":
        return cmd_rotate_chain_key(args)
    client = _client(args)
    if args.action == "create":
        if not args.tenant_given:
            raise InputError("name the key's tenant: uac keys create --tenant T [--subject S]")
        body = {
            "tenant": args.tenant,
            "subject": args.subject,
            "read_only": args.read_only,
            "label": args.label,
        }
        if client is not None:
            made = client.request("POST", "/v1/admin/keys", body)
        else:
            from uac.runtime.api import api_keys

            with _memory(args) as mem:
                key_id, token = api_keys.create(
                    mem.store,
                    args.tenant,
                    args.subject,
                    read_only=args.read_only,
                    label=args.label,
                )
            made = {"id": key_id, "token": token}
        if _machine(args, made):
            return 0
        scope = f"tenant {args.tenant}" + (f", subject {args.subject}" if args.subject else "")
        _err(f"key {made['id']} for {scope}{' (read-only)' if args.read_only else ''}:")
        _out(made["token"])
        _err("store it now: it is not kept and cannot be shown again")
        return 0
    if args.action == "revoke":
        if not args.key_id:
            raise InputError("name the key to revoke: uac keys revoke KEY_ID")
        if client is not None:
            client.request("POST", f"/v1/admin/keys/{args.key_id}/revoke", {})
        else:
            from uac.runtime.api import api_keys

            with _memory(args) as mem:
                api_keys.revoke(mem.store, args.key_id)
        if not _machine(args, {"id": args.key_id, "revoked": True}):
            _out(f"key {args.key_id} revoked")
        return 0
    if client is not None:
        rows = client.request("POST", "/v1/admin/keys/list", {})
    else:
        from uac.runtime.api import api_keys
        from uac.runtime.api.verbs import plain

        with _memory(args) as mem:
            rows = plain(api_keys.listing(mem.store))
    _listing(
        args,
        rows,
        "no API keys; create one with: uac keys create --tenant T",
        ("id", "tenant", "subject", "access", "created", "state", "label"),
        lambda r: (
            r["id"],
            r["tenant"],
            r["subject"] or "*",
            "read-only" if r["read_only"] else "read-write",
            _when(r["created_at"]),
            "revoked " + _when(r["revoked_at"]) if r["revoked_at"] else "active",
            r["label"] or "",
        ),
    )
    return 0
