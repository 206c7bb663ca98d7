"""Commands of recall: search, feedback, context."""

from __future__ import annotations

import argparse

from uac.runtime.cli.common import (
    _call,
    _fields,
    _machine,
    _out,
    _short,
    blas_on_one_thread,
)


def cmd_search(args: argparse.Namespace) -> int:
    with blas_on_one_thread():  # a new query's vector: the encoder's few small products
        hits = _call(
            args,
            "search",
            args.subject,
            text=args.text,
            k=args.k,
            since=args.since,
            kind=args.kind,
            today=args.today,
            neighbours=args.neighbours,
        )
    if _machine(args, hits):
        return 0
    if not hits:
        _out(f"nothing found for {args.text!r}")
    for n, hit in enumerate(hits, 1):
        flag = "  [not this]" if hit.get("negative_feedback") else ""
        _out(
            f"{n:>2}. {hit['id']}  {hit['kind']:<5} {hit['date'][:10]}  score {hit['score']:.4f}"
            f" (bm25 #{hit.get('bm25_rank') or '-'}, vector #{hit.get('vector_rank') or '-'})"
            f"{flag}"
        )
        _out(f"    {_short(hit['text'], 100)}")
        for nb in hit.get("neighbours") or ():
            _out(f"      {nb['offset']:+d} {nb['id']}  {_short(nb['text'], 90)}")
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    fact = _call(args, "feedback", args.subject, item_id=args.item_id, reason=args.reason)
    if _machine(args, fact):
        return 0
    _out(
        f"{fact['id']}  'not this' recorded on {args.item_id}; undo with: uac forget "
        f"{args.subject} {fact['id']}"
    )
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    with blas_on_one_thread():  # a new query's vector, as for a search
        block = _call(args, "context", args.subject, **_fields(args))
    if not _machine(args, block):
        _out(block["context"].rstrip())
    return 0
