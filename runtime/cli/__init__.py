"""The `uac` command line: thin commands over the verbs. `uac COMMAND --help` explains each.

Every command that reads or writes a subject runs one verb (`runtime/api/verbs.py`) and
prints its plain-JSON result. Where a server serves the workspace (`uac serve` wrote
`<home>/server.json`, or UAC_URL + UAC_API_KEY are set) the verb is forwarded to it over
HTTP, so commands work while agents are connected; otherwise the CLI opens the workspace
itself. Either way the same printing code reads the same JSON.

Only the standard library is imported at start-up; a forwarded call never loads DuckDB,
the extractor, the compiler or the sandbox, and a local read never loads the extractor
(docs/runtime.md, What a read loads). Global options (--home, --tenant, --json, ...) are accepted
before or after the command.

The package: `common.py` (where a verb runs, printing), `parser.py` (global options and
every command's arguments) and the commands by family: `writes.py`, `reads.py` (with the
one-shot query path), `alerts.py`, `recall.py`, `sharing.py`, `admin.py`, `ops.py`.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Sequence

from uac.fact_log.addressing import default_home
from uac.fact_log.errors import UacError, WorkspaceInUse
from uac.runtime.cli.common import LISTING, _await_server, _err
from uac.runtime.cli.parser import build_parser, named_command

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run `uac` with argv; returns the exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(named_command(words)).parse_args(words)
    args.home_flag = args.home is not None  # --home names a workspace: it beats UAC_URL
    args.home_given = args.home is not None or bool(os.environ.get("UAC_HOME"))
    if args.home is None:
        args.home = default_home()
    args.tenant_given = args.tenant is not None
    if args.tenant is not None and not args.tenant.strip():
        _err("uac: error: --tenant needs a name (leave it out for the default tenant)")
        return 1
    args.tenant = args.tenant or "default"
    args._client = False
    # The read-only looks lean reads answered from, left open for `_end_now` (argv None:
    # the process ends after the command) to release with the process (lean_reads.answer).
    args._held = [] if argv is None else None
    try:
        listing = args.command in LISTING and getattr(args, "action", "list") == "list"
        if args.jsonl and (args.json or not listing):
            raise UacError(_JSONL)
        try:
            status = args.func(args)
        except WorkspaceInUse as exc:
            if not _await_server(args, exc.holder):
                raise
            return args.func(args)  # the open failed, so nothing was written: run it forwarded
        if argv is None and getattr(args, "_lean", False):
            _end_now(status)
        return status
    except UacError as exc:
        _err(f"uac: error: {exc}")
        return 1
    except KeyboardInterrupt:
        _err("uac: interrupted; nothing from the interrupted write was kept")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine refused (disk full, permissions): said in one line
        where = f" ({exc.filename})" if exc.filename else ""
        _err(f"uac: error: {exc.strerror or exc}{where}")
        return 1
    except Exception as exc:  # a bug, not the input: still one line, never a traceback
        _err(f"uac: error: internal error ({type(exc).__name__}: {exc}); please report it")
        return 1


def _end_now(status: int) -> None:
    """End the process of a `uac` command a lean read, a one-shot query or a verb on the
    workspace (its `Memory` closed: writes committed, the file checkpointed and released)
    answered, its output flushed, without the interpreter's teardown (every module's objects
    freed one by one, DuckDB's engine taken down: ~0.12 s CPU after a local `add`): nothing
    of such a command is left to finish but the functions registered to run at exit (the
    sandbox's shutdown, after a query), which run first, as the usual exit runs them. Only
    when no other non-daemon thread runs (the usual exit would wait for it; it waits for no
    daemon thread, a stopped server's idle workers); otherwise the usual exit."""
    registered = getattr(atexit, "_ncallbacks", None)  # CPython's exit functions
    run = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    if registered is None or run is None or any(not t.daemon for t in others):
        return
    if registered():
        run()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


_JSONL = (
    "--jsonl streams the rows of a listing command ("
    + ", ".join(sorted(LISTING - {"keys", "member"}))
    + ", keys list, member list) instead of --json; other commands print one JSON document "
    "with --json"
)
