"""Writes runtime/api/verb_methods.py (the `Verbs` protocol and the `Client`'s verb methods)
and runtime/api/memory_verbs.py (`Memory`'s verbs, each its service's method).

Both are derived from two sources of truth: the verb table (runtime/api/verbs.py: which
Memory methods are verbs, their wire names and argument models) and the methods' own
signatures (parameters, defaults, annotations, first docstring line), read in the service
that holds each (`SERVICES`; a verb no service holds is `Memory`'s own). The generated files
are committed so a type checker reads them and a reader can; tests/test_verb_table.py fails
when one is stale. Regenerate with:

    python -m uac.runtime.api.verb_codegen
"""

from __future__ import annotations

import datetime as dt
import importlib
import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

from uac.runtime.api import verbs

TARGET = Path(__file__).with_name("verb_methods.py")
FACADE = Path(__file__).with_name("memory_verbs.py")

# The services behind `Memory` (memory.py composes them): its attribute holding each, the
# module and the class. A verb's method is looked for in these, in this order.
SERVICES = (
    ("_writer", "uac.runtime.api.writes", "Writer"),
    ("_planner", "uac.runtime.api.preview", "Planner"),
    ("_reader", "uac.runtime.api.reads", "Reader"),
    ("_alerts", "uac.runtime.api.alerts", "AlertDesk"),
    ("_recall", "uac.runtime.api.recall", "Recall"),
    ("_sharing", "uac.runtime.api.sharing", "Sharing"),
    ("_journal", "uac.runtime.api.journal", "Journal"),
)

FACADE_HEADER = '''"""`Memory`'s verbs, each the method of the service that holds it: generated.

Do not edit: run `python -m uac.runtime.api.verb_codegen` (runtime/api/verb_codegen.py);
tests/test_verb_table.py fails when this file is stale. Each line exposes one verb of the
verb table (runtime/api/verbs.py) with its service's signature and docstring (`via`,
runtime/api/workspace.py); `Memory` (memory.py) composes the services and inherits these.
"""

from __future__ import annotations

'''

HEADER = '''# ruff: noqa: E501
"""The verbs as methods, generated from the verb table and `Memory`'s signatures.

Do not edit: run `python -m uac.runtime.api.verb_codegen` (runtime/api/verb_codegen.py);
tests/test_verb_table.py fails when this file is stale.

`Verbs` is the protocol `Memory` (in process) and `Client` (over HTTP) both satisfy;
`RemoteVerbs` is the `Client`'s half: each method sends its wire fields and decodes the
answer into `Memory`'s result type. Parameters a server cannot take (a progress callback,
sandbox limits, sinks) are refused by `_local_only` when given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

'''


REMOTE_HEAD = '''class RemoteVerbs:
    """The verbs over HTTP (the `Client`'s): wire fields out, Memory's types back."""

    def _verb(
        self,
        name: str,
        subject: str | None,
        fields: dict[str, Any],
        returns: str,
        *,
        key: str | tuple[str, ...] | None = None,
        sent: tuple[str, Any] | None = None,
    ) -> Any:
        raise NotImplementedError

    def _local_only(self, method: str, **given: Any) -> None:
        raise NotImplementedError

'''


def _kind(annotation: Any) -> tuple[str, list[Any] | None]:
    """A field's CLI kind (parser.py turns it into an argparse type) and its choices."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    first = args[0]
    if typing.get_origin(first) is typing.Literal:
        return "str", list(typing.get_args(first))
    names = {bool: "flag", int: "int", float: "float", dt.datetime: "moment", dt.date: "day"}
    return names.get(first, "str"), None


def _commands() -> dict[str, Any]:
    """The CLI sub-commands rows define: help, subject, and (flags, settings) per argument."""
    out: dict[str, Any] = {}
    for verb in verbs.VERBS.values():
        if verb.cli is None:
            continue
        arguments: list[Any] = []
        for name, field in verb.args.model_fields.items():
            if name == "now":  # the command records the present
                continue
            wire = field.alias or name
            kind, choices = _kind(field.annotation)
            spec: dict[str, Any] = {"help": field.description or wire.replace("_", " ")}
            if choices is not None:
                spec["choices"] = choices
            if name in verb.cli:
                flags = [wire]
                if not field.is_required():
                    spec["nargs"] = "?"
            else:
                flags = ["--" + wire.replace("_", "-")]
                spec["dest"] = wire
                if kind != "flag" and field.default is not None:
                    spec["default"] = field.default
                    spec["help"] += " (default: %(default)s)"
            spec["kind"] = kind
            arguments.append((verb.cli.index(name) if name in verb.cli else 99, flags, spec))
        arguments.sort(key=lambda a: a[0])
        out[verb.command or verb.name] = {
            "verb": verb.name,
            "help": verb.cli_help or verb.summary,
            "subject": verb.subject,
            "arguments": [[flags, spec] for _, flags, spec in arguments],
        }
    return out


def _memory() -> type:
    from uac.runtime.api.memory import Memory

    return Memory


def _service(name: str) -> tuple[str, type] | None:
    """(Memory's attribute, the service class) holding verb method `name`; None: Memory's own."""
    for attr, module, cls in SERVICES:
        service = getattr(importlib.import_module(module), cls)
        if name in vars(service):
            return attr, service
    return None


def _method(name: str) -> Any:
    """The function that is verb method `name`: its service's, else `Memory`'s own."""
    found = _service(name)
    return vars(found[1])[name] if found is not None else getattr(_memory(), name)


def _names(annotation: str) -> set[str]:
    """The top-level names an annotation string uses (`dt.date | None` -> {"dt"})."""
    return {m for m in re.findall(r"(?<![\w.])([A-Za-z_]\w*)", annotation)} - {"None"}


BUILTIN = {"str", "int", "float", "bool", "list", "dict", "tuple", "set", "bytes", "object"}


def _where(func: Any, name: str) -> tuple[str, str | None]:
    """(module, attribute) to import `name` used in `func`'s annotations from."""
    obj = func.__globals__.get(name)
    if isinstance(obj, types.ModuleType):
        return obj.__name__, None
    if isinstance(obj, type) and obj.__module__ != "builtins":
        return obj.__module__, name
    if name == "Any":
        return "typing", name
    # An alias, or a name imported for type checking only: where the module imports it from.
    source = Path(sys.modules[func.__module__].__file__ or "").read_text(encoding="utf-8")
    found = re.search(rf"from ([\w.]+) import [^\n]*\b{name}\b", source)
    return (found.group(1) if found else func.__module__), name


def _signature(method: Any) -> tuple[list[inspect.Parameter], str]:
    sig = inspect.signature(method)
    params = list(sig.parameters.values())[1:]  # self
    return params, str(sig.return_annotation)


def _render_params(params: list[inspect.Parameter]) -> str:
    out = ["self"]
    star = False
    for p in params:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        text = f"{p.name}: {p.annotation}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {p.default!r}"
        out.append(text)
    return ", ".join(out)


def _body(verb: verbs.Verb, name: str, params: list[inspect.Parameter], returns: str) -> str:
    fields = verb.args.model_fields
    sent = dict(verb.sent_as)
    rest = params if verb.subject == "none" else params[1:]
    subject = "None" if verb.subject == "none" else params[0].name
    wire, local, extra = [], [], None
    for p in rest:
        if p.name in sent:
            extra = f"({sent[p.name]!r}, {p.name})"
        elif p.name in fields:
            wire.append(f"{(fields[p.name].alias or p.name)!r}: {p.name}")
        else:
            local.append(f"{p.name}={p.name}")
    lines = []
    if local:
        lines.append(f"self._local_only({name!r}, {', '.join(local)})")
    call = f"self._verb({verb.name!r}, {subject}, {{{', '.join(wire)}}}, {returns!r}"
    if verb.result.key is not None:
        call += f", key={verb.result.key!r}"
    if extra is not None:
        call += f", sent={extra}"
    lines.append(f"return {call})")
    return "\n".join(" " * 8 + line for line in lines)


def render_facade() -> str:
    """The text of memory_verbs.py (formatted as ruff formats it)."""
    lines, used = [], set()
    for verb in verbs.VERBS.values():
        for name in verb.method_names:
            found = _service(name)
            if found is not None:
                attr, service = found
                used.add((service.__module__, service.__name__))
                lines.append(f"    {name} = via({attr!r}, {service.__name__}.{name})")
    text = FACADE_HEADER + "from uac.runtime.api.workspace import via\n"
    text += "".join(f"from {module} import {cls}\n" for module, cls in sorted(used))
    text += "\n\nclass ServiceVerbs:\n"
    text += '    """The verbs of the verb table a service holds, as `Memory` exposes them."""\n\n'
    return _format(text + "\n".join(lines) + "\n", FACADE)


def render() -> str:
    """The text of verb_methods.py (formatted as ruff formats it)."""
    imports: dict[str, set[str | None]] = {}
    protocol, remote, result_types = [], [], {}
    for verb in verbs.VERBS.values():
        for name in verb.method_names:
            method = _method(name)
            params, returns = _signature(method)
            used: set[str] = set()
            for ann in [returns, *(str(p.annotation) for p in params)]:
                used |= _names(ann)
            for n in sorted(used - BUILTIN):
                module, attr = _where(method, n)
                imports.setdefault(module, set()).add(attr if attr else f"<module>{n}")
            for n in sorted(_names(returns) - BUILTIN):
                module, attr = _where(method, n)
                if attr is not None and attr != "Any":
                    result_types[n] = module
            head = f"def {name}({_render_params(params)}) -> {returns}:"
            doc = (inspect.getdoc(method) or verb.summary).splitlines()[0]
            protocol.append(f"    {head} ...")
            remote.append(
                f'    {head}\n        """{doc}"""\n{_body(verb, name, params, returns)}\n'
            )
    typing_lines = []
    for module in sorted(imports):
        names = sorted(a for a in imports[module] if a is not None and a != "Any")
        for alias in (a.removeprefix("<module>") for a in names if a.startswith("<module>")):
            typing_lines.append(
                f"    import {module}" + (f" as {alias}" if alias != module else "")
            )
        names = [a for a in names if not a.startswith("<module>")]
        if names:
            typing_lines.append(f"    from {module} import {', '.join(names)}")
    text = HEADER
    text += "if TYPE_CHECKING:\n" + "\n".join(typing_lines) + "\n\n"
    text += (
        "# Where each result type lives: an answer is decoded into it (imported on first use).\n"
    )
    text += f"RESULT_TYPES = {dict(sorted(result_types.items()))!r}\n\n\n"
    text += "# The CLI sub-commands the verb table defines (runtime/cli/parser.py adds them).\n"
    text += f"COMMANDS = {_commands()!r}\n\n\n"
    text += "class Verbs(Protocol):\n"
    text += '    """The verbs of `Memory` and of `Client`, one signature each."""\n\n'
    text += "\n".join(protocol) + "\n\n\n"
    text += REMOTE_HEAD
    text += "\n".join(remote)
    return _format(text, TARGET)


def _format(text: str, target: Path) -> str:
    for command in (["check", "--fix", "--select", "I"], ["format"]):
        text = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", str(target), "-"],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return text


def main() -> int:
    """Write memory_verbs.py, then verb_methods.py (from the services' signatures)."""
    for target, text in ((FACADE, render_facade()), (TARGET, render())):
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
