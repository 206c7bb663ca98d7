"""Commands that write a subject's log: init, set, import, add/remember, note, prefer,
forget, episode, confirm."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from uac.fact_log.errors import InputError
from uac.runtime.cli.common import (
    _call,
    _client,
    _err,
    _fields,
    _machine,
    _memory,
    _out,
    _print_alerts,
    _print_json,
    _progress,
    _short,
    _value,
    _watching,
    blas_on_one_thread,
)


def _print_learned(learned: dict[str, Any]) -> None:
    refused = learned.get("refused") or []
    _out(
        f"archived as {learned['input_id']}; {len(learned['facts'])} fact(s) learned"
        + (f", {len(refused)} refused ({', '.join(sorted(set(refused)))})" if refused else "")
    )
    for fact in learned["facts"]:
        _out(
            f"  {fact['id']}  {fact['kind']:<10} {fact['path']:<30} {_short(_value(fact), 60)}"
            f"  (confidence {fact['confidence']:.2f})"
        )
    _print_alerts(learned)


def _read_text(args: argparse.Namespace) -> str:
    """The message: the TEXT argument, `-` for stdin, or --file."""
    if args.file is not None:
        if args.text is not None:
            raise InputError("give the message as TEXT or with --file, not both")
        try:
            return Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{args.file}: cannot read the message ({exc})") from None
    if args.text is None:
        raise InputError("give the message as TEXT, '-' to read stdin, or --file FILE")
    return sys.stdin.read() if args.text == "-" else args.text


def cmd_init(args: argparse.Namespace) -> int:
    if _client(args) is not None:
        if not _machine(args, {"home": str(args.home), "served_by": _client(args).url}):
            _out(f"workspace {args.home} is served by {_client(args).url}; nothing to do")
        return 0
    existed = Path(args.home).expanduser().is_dir()
    with _memory(args, create=True) as mem:
        where = mem.store.backend.where
        ready = {"home": str(mem.home), "schema_version": mem.store.schema_version, "log": where}
        if not _machine(args, ready):
            _out(f"workspace ready at {mem.home} (schema version {mem.store.schema_version})")
        mode = mem.home.stat().st_mode & 0o777
        if existed and mode & 0o077:  # uac makes 0700 only the homes it creates
            _err(
                f"note: {mem.home} existed already and keeps its mode {mode:o}, so other users "
                f"of this machine may read it; run chmod 700 {mem.home} to keep them out"
            )
        if where is not None and not args.json:
            _out(f"its fact log is the PostgreSQL database {where}")
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    fact = _call(
        args,
        "set",
        args.subject,
        path=args.path,
        value=args.value,
        valid_from=args.valid_from,
        valid_to=args.valid_to,
        session=args.session,
    )
    if args.json:
        _print_json(fact)
    else:
        _out(f"{fact['id']}  {fact['path']} = {_value(fact)}")
        _print_alerts(fact)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    client = _client(args)
    if client is not None:
        with _watching(args, client, "import", args.subject):
            result = client.send_file(
                "import",
                args.subject,
                args.file,
                collection=args.collection,
                format=args.format,
                session=args.session,
            )
    else:
        from uac.runtime.api.verbs import plain

        with _memory(args) as mem, _progress(args, "importing") as bar:
            result = plain(
                mem.import_file(
                    args.subject,
                    args.collection,
                    args.file,
                    format=args.format,
                    session_id=args.session,
                    progress=bar.report,
                )
            )
    if args.json:
        _print_json(result)
        return 0
    what = "catalog collection" if result["known"] else "new collection (schema inferred)"
    _out(
        f"imported {result['facts']} records into {result['path']} ({what}) for {result['subject']}"
    )
    if result.get("schema"):
        from uac.fact_log.shapes import describe

        shown = ", ".join(f"{k}: {describe(v)}" for k, v in result["schema"].items())
        _out("inferred schema: " + shown)
    _print_alerts(result)
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    fact = _call(args, "forget", args.subject, **_fields(args))
    if _machine(args, fact):
        return 0
    _out(f"{fact['id']}  retracts {args.fact_id} ({fact['path']})")
    _print_alerts(fact)
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    text = _read_text(args)
    params: dict[str, Any] = {"session": args.session}
    if args.command != "remember":
        params |= {"at": args.at, "role": args.role}
    with _one_message():
        learned = _call(args, args.command, args.subject, text=text, **params)
    if args.json:
        _print_json(learned)
    else:
        _print_learned(learned)
    return 0


@contextlib.contextmanager
def _one_message() -> Iterator[None]:
    """The process of a one-message `add`, set for a short run that ends after it.

    The cyclic collector is paused: it would only walk, again and again, the ~60,000
    objects the imports leave (~0.05 s of the command's CPU); reference counting still frees
    what is not a cycle, and a message is at most the policy's size (the compile and the
    checks pause the collector for their own work the same way). NumPy's OpenBLAS, when
    this process loads it, runs on one thread (`blas_on_one_thread`): one message's
    products are small."""
    from uac.compiler.gc_pause import cyclic_gc_paused

    with blas_on_one_thread(), cyclic_gc_paused():
        yield


def cmd_note(args: argparse.Namespace) -> int:
    if (args.file is None) == (not args.template):
        raise InputError("give a FILE.md to ingest, or --template to print a template (not both)")
    if args.template:
        from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
        from uac.fact_log.extraction.markdown import note_template

        template = note_template(Catalog.load(args.home / WORKSPACE_CATALOG))
        if not _machine(args, {"template": template}):
            _out(template.rstrip())
        return 0
    try:
        content = Path(args.file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{args.file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{args.file}: cannot read a UTF-8 Markdown note ({exc})") from None
    learned = _call(
        args, "note", args.subject, content=content, note_id=args.id or Path(args.file).name
    )
    if not _machine(args, learned):
        _print_learned(learned)
    return 0


def cmd_prefer(args: argparse.Namespace) -> int:
    fact = _call(args, "prefer", args.subject, **_fields(args))
    if _machine(args, fact):
        return 0
    _out(f"{fact['id']}  soft preference stored: {fact['text']}")
    return 0


def cmd_episode(args: argparse.Namespace) -> int:
    fact = _call(
        args,
        "episode",
        args.subject,
        problem=args.problem,
        tried=args.tried or None,
        worked=args.worked,
        failed=args.failed or None,
        date=args.date,
    )
    if _machine(args, fact):
        return 0
    _out(f"{fact['id']}  episode: {fact['value']['problem']}")
    _print_alerts(fact)
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    fact = _call(args, "confirm", args.subject, **_fields(args))
    if _machine(args, fact):
        return 0
    _out(f"{fact['id']}  confirmed {fact['path']} = {json.dumps(fact['value'])}")
    _print_alerts(fact)
    return 0
