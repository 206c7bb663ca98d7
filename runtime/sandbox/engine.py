"""Layers 1 and 2 of the query sandbox, plus the namespace and the result encoder.

Layer 1 validates the program's AST against a narrow allow-list; layer 2 rewrites it so
every attribute read, subscript and size-sensitive operator goes through a guard that
checks the receiver's type, enforces caps and (for explain) records what was read. This
module runs inside the sandboxed child; it never executes anything on the host.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import functools
import itertools
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from decimal import Decimal
from types import MappingProxyType, ModuleType
from typing import Any

from uac.runtime.sandbox.helpers import make_helpers
from uac.runtime.sandbox.limits import Limits


class QueryFailure(Exception):
    """A typed failure of one query: code, one-sentence message, line (when meaningful)."""

    def __init__(self, code: str, message: str, line: int | None = None):
        super().__init__(message)
        self.code, self.message, self.line = code, message, line


class NotAllowed(Exception):
    """Raised by a guard at run time; becomes a `not_allowed` failure."""


class LimitExceeded(Exception):
    """Raised by a guard at run time; becomes a `limit_exceeded` failure."""


# -- layer 1: the allow-list ---------------------------------------------------------------

_NODES: frozenset[type] = frozenset(
    {
        ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.For, ast.If, ast.Break,
        ast.Continue, ast.Pass, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Dict,
        ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension,
        ast.Compare, ast.Call, ast.keyword, ast.JoinedStr, ast.FormattedValue, ast.Constant,
        ast.Attribute, ast.Subscript, ast.Name, ast.List, ast.Tuple, ast.Slice, ast.Lambda,
        ast.arguments, ast.arg, ast.Load, ast.Store, ast.And, ast.Or, ast.Add, ast.Sub,
        ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitAnd,
        ast.BitOr, ast.BitXor, ast.UAdd, ast.USub, ast.Not, ast.Invert, ast.Eq, ast.NotEq,
        ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
    }
)  # fmt: skip

_WHAT = {
    ast.Import: "import", ast.ImportFrom: "import", ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "async def", ast.ClassDef: "class", ast.Try: "try",
    ast.While: "while", ast.With: "with", ast.Global: "global", ast.Nonlocal: "nonlocal",
    ast.NamedExpr: "the walrus operator", ast.Delete: "del", ast.Raise: "raise",
    ast.Starred: "a starred expression", ast.Return: "return", ast.Yield: "yield",
    ast.YieldFrom: "yield", ast.Await: "await", ast.Assert: "assert", ast.MatMult: "@",
    ast.Match: "match", ast.AnnAssign: "annotations",
}  # fmt: skip

_FORMAT_NUMBER = re.compile(r"\d+")


def _fail(node: ast.AST, message: str) -> QueryFailure:
    return QueryFailure("not_allowed", message, getattr(node, "lineno", None))


def _check_target(node: ast.AST) -> None:
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.Tuple | ast.List) and all(isinstance(e, ast.Name) for e in node.elts):
        return
    raise _fail(node, "only plain names (or a tuple of names) can be assigned to")


def validate(tree: ast.Module, attrs: frozenset[str], limits: Limits) -> None:
    """Refuse anything outside the allowed grammar (iteratively: deep trees must not recurse)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > limits.max_nodes:
            raise QueryFailure(
                "limit_exceeded", f"the program has more than {limits.max_nodes} syntax nodes"
            )
        if depth > limits.max_depth:
            raise QueryFailure(
                "limit_exceeded",
                f"the program nests deeper than {limits.max_depth} levels",
                getattr(node, "lineno", None),
            )
        kind = type(node)
        if kind not in _NODES:
            what = _WHAT.get(kind, kind.__name__)
            raise _fail(node, f"{what} is not allowed in a query")
        if isinstance(node, ast.Name | ast.arg):
            name = node.id if isinstance(node, ast.Name) else node.arg
            if name.startswith("_"):
                raise _fail(node, f"names starting with '_' are not allowed ({name})")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise _fail(node, f"attributes starting with '_' are not allowed (.{node.attr})")
            if node.attr not in attrs:
                raise _fail(node, f"attribute .{node.attr} is not a schema field or allowed method")
            if not isinstance(node.ctx, ast.Load):
                raise _fail(node, "assigning to attributes is not allowed")
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            raise _fail(node, "assigning to items is not allowed; build a new dict or list")
        elif isinstance(node, ast.Constant):
            _check_constant(node, limits)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _check_target(target)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise _fail(node, "only plain names can be updated with augmented assignment")
        elif isinstance(node, ast.For):
            _check_target(node.target)
            if node.orelse:
                raise _fail(node, "for ... else is not allowed")
        elif isinstance(node, ast.comprehension):
            _check_target(node.target)
            if node.is_async:
                raise _fail(node.iter, "async comprehensions are not allowed")
        elif isinstance(node, ast.arguments):
            if node.vararg or node.kwarg or node.kwonlyargs or node.defaults or node.posonlyargs:
                raise _fail(tree, "lambdas may only take plain positional parameters")
        elif isinstance(node, ast.keyword) and node.arg is None:
            raise _fail(node, "**keyword unpacking is not allowed")
        elif isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            raise _fail(node, "**dict unpacking is not allowed")
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            _check_format_spec(node, limits)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _check_constant(node: ast.Constant, limits: Limits) -> None:
    value = node.value
    if value is None or isinstance(value, bool | float):
        return
    if isinstance(value, int):
        if value.bit_length() > limits.max_int_bits:
            raise QueryFailure("limit_exceeded", "an integer literal is too large", node.lineno)
        return
    if isinstance(value, str):
        if len(value) > limits.max_literal:
            raise QueryFailure("limit_exceeded", "a string literal is too long", node.lineno)
        return
    raise _fail(node, f"{type(value).__name__} literals are not allowed")


def _check_format_spec(node: ast.FormattedValue, limits: Limits) -> None:
    spec = node.format_spec
    parts = spec.values if isinstance(spec, ast.JoinedStr) else [spec]
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts):
        raise _fail(node, "f-string format specs may not contain replacement fields")
    text = "".join(p.value for p in parts)  # type: ignore[union-attr]
    if any(int(n) > limits.max_format_width for n in _FORMAT_NUMBER.findall(text)):
        raise QueryFailure(
            "limit_exceeded",
            f"f-string widths and precisions are capped at {limits.max_format_width}",
            node.lineno,
        )


# -- layer 2: the rewrite ------------------------------------------------------------------

_GUARDED_OPS = {ast.Mult: "*", ast.Pow: "**", ast.LShift: "<<", ast.Add: "+", ast.Mod: "%"}


class _Rewrite(ast.NodeTransformer):
    """Route attribute reads, subscripts and size-sensitive operators through guards."""

    def _call(self, guard: str, node: ast.AST, *args: ast.expr) -> ast.Call:
        call = ast.Call(ast.Name(guard, ast.Load()), list(args), [])
        return ast.copy_location(call, node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        return self._call("_g_attr", node, node.value, ast.Constant(node.attr))

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        return self._call("_g_item", node, node.value, node.slice)

    def visit_Slice(self, node: ast.Slice) -> ast.AST:
        self.generic_visit(node)
        none = ast.Constant(None)
        return self._call(
            "_g_slice", node, node.lower or none, node.upper or none, node.step or none
        )

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        op = _GUARDED_OPS.get(type(node.op))
        if op is None:
            return node
        return self._call("_g_binop", node, ast.Constant(op), node.left, node.right)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        target = node.target
        assert isinstance(target, ast.Name)
        op = _GUARDED_OPS.get(type(node.op))
        current = ast.Name(target.id, ast.Load())
        if op is None:
            value: ast.expr = ast.BinOp(current, node.op, node.value)
        else:
            value = self._call("_g_binop", node, ast.Constant(op), current, node.value)
        store = ast.Name(target.id, ast.Store())
        return ast.copy_location(ast.Assign([store], ast.copy_location(value, node)), node)


def compile_program(source: str, attrs: frozenset[str], limits: Limits) -> Any:
    """Parse, validate, rewrite and compile a program; its last expression becomes `_result`."""
    if len(source) > limits.max_source:
        raise QueryFailure("limit_exceeded", f"the program is longer than {limits.max_source}")
    try:
        tree = ast.parse(source, "<query>", "exec")
    except SyntaxError as exc:
        raise QueryFailure("syntax_error", f"invalid syntax: {exc.msg}", exc.lineno) from None
    except (RecursionError, MemoryError):
        raise QueryFailure("limit_exceeded", "the program is nested too deeply to parse") from None
    # What is not allowed is said first: `import os` is valid Python, refused as an import,
    # not as a program that lacks a result.
    validate(tree, attrs, limits)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        line = tree.body[-1].lineno if tree.body else None
        raise QueryFailure(
            "syntax_error", "the program must end with an expression giving the result", line
        )
    return lower(tree)


@functools.lru_cache(maxsize=256)
def compiled(source: str, attrs: frozenset[str], limits: Limits) -> Any:
    """`compile_program`, remembered: a reused worker often sees the same program again.

    Only code objects are kept (immutable, run each time in a fresh namespace), keyed by
    everything compilation depends on; refusals are not cached and are raised again.
    """
    return compile_program(source, attrs, limits)


def lower(tree: ast.Module) -> Any:
    """Rewrite a parsed program through the guards and compile it (layer 2, no validation)."""
    tree = _Rewrite().visit(tree)
    last = tree.body[-1]
    tree.body[-1] = ast.copy_location(
        ast.Assign([ast.Name("_result", ast.Store())], last.value), last
    )
    ast.fix_missing_locations(tree)
    try:
        return compile(tree, "<query>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise QueryFailure("syntax_error", f"invalid program: {exc}") from None
    except (RecursionError, MemoryError):
        raise QueryFailure("limit_exceeded", "the program is nested too deeply") from None


# -- facades and the per-type attribute policy ---------------------------------------------


def _facade(name: str, members: dict[str, Any]) -> Any:
    """A slotted, attribute-free object exposing only the listed members (never a module)."""
    attrs = {
        k: staticmethod(v) if callable(v) and not isinstance(v, type) else v
        for k, v in members.items()
    }
    # repr names the facade only: the default shows an internal module path and an address.
    text = f"<uac facade {name}>"
    cls = type(name, (), {"__slots__": (), "__repr__": lambda self: text, **attrs})
    return cls()


class _Named:
    """A callable that shows only its name: a function's repr has its qualname and address."""

    __slots__ = ("_fn", "_text")

    def __init__(self, name: str, fn: Callable[..., Any]):
        self._fn, self._text = fn, f"<uac function {name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return self._text


_SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset(
        [
            "lower",
            "upper",
            "strip",
            "lstrip",
            "rstrip",
            "startswith",
            "endswith",
            "split",
            "rsplit",
            "replace",
            "title",
            "capitalize",
            "casefold",
            "isdigit",
            "isalpha",
            "isalnum",
            "isspace",
            "islower",
            "isupper",
            "isnumeric",
            "count",
            "find",
            "rfind",
            "index",
            "join",
            "splitlines",
            "partition",
            "rpartition",
            "removeprefix",
            "removesuffix",
        ]
    ),
    dt.date: frozenset(
        [
            "year",
            "month",
            "day",
            "isoformat",
            "weekday",
            "isoweekday",
            "toordinal",
            "replace",
            "isocalendar",
        ]
    ),
    dt.timedelta: frozenset(["days", "seconds", "total_seconds"]),
    Decimal: frozenset(["quantize", "copy_abs", "is_signed", "is_zero"]),
    float: frozenset(["is_integer"]),
    dict: frozenset(["get", "items", "keys", "values"]),
    list: frozenset(["append", "extend", "count", "index", "copy"]),
    tuple: frozenset(["count", "index"]),
    set: frozenset(["union", "intersection", "difference", "issubset", "issuperset", "add"]),
    frozenset: frozenset(["union", "intersection", "difference", "issubset", "issuperset"]),
}
_SAFE_METHODS[dt.datetime] = _SAFE_METHODS[dt.date] | frozenset(
    ["hour", "minute", "second", "microsecond", "date"]
)
_SAFE_METHODS[Counter] = _SAFE_METHODS[dict] | frozenset(["most_common", "total"])
_SAFE_METHODS[defaultdict] = _SAFE_METHODS[dict]
# The compiled state's maps (e.g. `user.inherited_from`) are read-only views of a dict.
_SAFE_METHODS[MappingProxyType] = _SAFE_METHODS[dict]
_SAFE_METHODS[type(dt.date(2000, 1, 1).isocalendar())] = frozenset(["year", "week", "weekday"])
# Attributes of classes themselves (e.g. `date.fromisoformat`); `date.today` is absent on
# purpose: "now" is passed in as `today`.
_CLASS_ATTRS: dict[Any, frozenset[str]] = {
    dt.date: frozenset(["fromisoformat", "fromordinal", "min", "max"]),
    dt.timedelta: frozenset(["min", "max"]),
}


def _capped(limits: Limits) -> dict[str, Callable[..., Any]]:
    """Size-capped versions of builtins and itertools that can multiply their input."""

    def safe_range(*args: int) -> range:
        r = range(*args)
        if len(r) > limits.max_seq:
            raise LimitExceeded(f"range of {len(r)} items is over the cap of {limits.max_seq}")
        return r

    def combinations(iterable: Iterable[Any], r: int) -> Any:
        pool = tuple(iterable)
        if r < 0 or math.comb(len(pool), r) > limits.max_seq:
            raise LimitExceeded(f"more than {limits.max_seq} combinations")
        return itertools.combinations(pool, r)

    def product(*iterables: Iterable[Any]) -> Any:
        pools = [tuple(i) for i in iterables]
        if math.prod(len(p) for p in pools) > limits.max_seq:
            raise LimitExceeded(f"more than {limits.max_seq} combinations")
        return itertools.product(*pools)

    return {
        "range": _Named("range", safe_range),
        "combinations": _Named("combinations", combinations),
        "product": _Named("product", product),
    }


def _c_import(name: str, *args: Any, **kwargs: Any) -> ModuleType:
    """`__import__` for C code only: `date.__format__` imports `time` through the builtins.

    Programs cannot call it (names starting with '_' are refused), and it hands back only
    modules the zygote already imported.
    """
    if name in ("time", "_strptime"):
        import sys

        return sys.modules[name]
    raise ImportError(f"import of {name} is not allowed")


class Policy:
    """What one subject's programs may touch: schema types, facades, attribute tables."""

    def __init__(
        self,
        schema: ModuleType,
        user: Any,
        limits: Limits,
        paths: dict[str, list[str]] | None = None,
        statistics: bool = True,
    ):
        """`statistics`: False leaves the `statistics` facade out (and the module unimported:
        ~4 ms of a zygote's start), for a zygote whose host knows no program it serves names
        it (`sandbox.names_statistics`)."""
        self.user = user
        self.max_seq = limits.max_seq  # the caps `range` and the facade's itertools carry
        self.paths = paths or {}  # provenance.json: object path -> fact ids
        self.records: dict[type, frozenset[str]] = {
            cls: frozenset(f.name for f in dataclasses.fields(cls))
            for cls in vars(schema).values()
            if isinstance(cls, type) and dataclasses.is_dataclass(cls)
        }
        # Which collection a record type lives in, and which singleton group an object is,
        # so explain can name what was read in provenance.json's path syntax.
        self.collections: dict[type, str] = {}
        self.groups: dict[int, str] = {}
        for f in dataclasses.fields(type(user)):
            value = getattr(user, f.name)
            if isinstance(value, tuple):
                if value:
                    self.collections[type(value[0])] = f.name
            elif dataclasses.is_dataclass(value):
                self.groups[id(value)] = f.name
        capped = _capped(limits)
        self.facades = {
            "math": _facade(
                "math",
                {
                    k: getattr(math, k)
                    for k in [
                        "floor",
                        "ceil",
                        "sqrt",
                        "log",
                        "log2",
                        "log10",
                        "exp",
                        "fabs",
                        "isclose",
                        "isfinite",
                        "isnan",
                        "fsum",
                        "trunc",
                        "gcd",
                        "hypot",
                        "copysign",
                        "pi",
                        "e",
                        "inf",
                        "nan",
                    ]
                },
            ),
            "datetime": _facade("datetime", {"date": dt.date, "timedelta": dt.timedelta}),
            "collections": _facade("collections", {"Counter": Counter, "defaultdict": defaultdict}),
            "itertools": _facade(
                "itertools",
                {
                    "groupby": itertools.groupby,
                    "islice": itertools.islice,
                    "chain": itertools.chain,
                    "pairwise": itertools.pairwise,
                    "accumulate": itertools.accumulate,
                    "combinations": capped["combinations"],
                    "product": capped["product"],
                },
            ),
        }
        if statistics:
            import statistics as stats_module

            self.facades["statistics"] = _facade(
                "statistics",
                {
                    k: getattr(stats_module, k)
                    for k in [
                        "mean",
                        "fmean",
                        "median",
                        "median_low",
                        "median_high",
                        "mode",
                        "multimode",
                        "stdev",
                        "pstdev",
                        "variance",
                        "pvariance",
                        "quantiles",
                    ]
                },
            )
        self.attrs: dict[type, frozenset[str]] = {**_SAFE_METHODS, **self.records}
        for facade in self.facades.values():
            names = frozenset(k for k in vars(type(facade)) if not k.startswith("_"))
            self.attrs[type(facade)] = names
        self.all_attrs = frozenset().union(*self.attrs.values(), *_CLASS_ATTRS.values())
        self.builtins: dict[str, Any] = {
            "len": len, "sum": sum, "min": min, "max": max, "sorted": sorted, "any": any,
            "all": all, "abs": abs, "round": round, "enumerate": enumerate, "zip": zip,
            "range": capped["range"], "list": list, "tuple": tuple, "dict": dict, "set": set,
            "frozenset": frozenset, "str": str, "int": int, "float": float, "bool": bool,
            "reversed": reversed, "map": map, "filter": filter, "next": next, "divmod": divmod,
            "chr": chr, "ord": ord, "repr": repr, "Decimal": Decimal, "True": True,
            "False": False, "None": None, "__import__": _c_import,
        }  # fmt: skip


# -- guards --------------------------------------------------------------------------------


class Guards:
    """The run-time checks the rewrite routes through; `reads` collects explain data."""

    def __init__(self, policy: Policy, limits: Limits, explain: bool):
        self.policy, self.limits, self.explain = policy, limits, explain
        self.records: set[str] = set()
        self.fields: set[str] = set()
        self.fact_ids: set[str] = set()
        attrs = policy.attrs
        records = policy.records
        self.builtins, self.facades = policy.builtins, policy.facades
        if limits.max_seq != policy.max_seq:
            # The policy's size-capped functions carry its default cap: this query's own.
            capped = _capped(limits)
            self.builtins = {**policy.builtins, "range": capped["range"]}
            shared = policy.facades["itertools"]
            names = policy.attrs[type(shared)]
            members = {k: getattr(shared, k) for k in names}
            members.update(combinations=capped["combinations"], product=capped["product"])
            own = _facade("itertools", members)
            self.facades = {**policy.facades, "itertools": own}
            attrs = {**attrs, type(own): names}

        def g_attr(obj: Any, name: str) -> Any:
            kind = type(obj)
            allowed = attrs.get(kind)
            if allowed is None:
                allowed = _CLASS_ATTRS.get(obj) if kind is type else None
                if allowed is None:
                    raise NotAllowed(f"attribute .{name} of {kind.__name__} is not allowed")
            if name not in allowed:
                raise NotAllowed(f"{kind.__name__} has no allowed attribute .{name}")
            if explain and kind in records:
                self._note(obj, name)
            return getattr(obj, name)

        self.g_attr = g_attr

    def _note(self, obj: Any, name: str) -> None:
        kind = type(obj)
        collection = self.policy.collections.get(kind)
        if collection is not None:
            key = getattr(obj, "key", None) or getattr(obj, "fact_id", None)
            self.records.add(f"user.{collection}[{key!r}]")
            ids = getattr(obj, "fact_ids", None)
            self.fact_ids.update(ids if ids is not None else [obj.fact_id])
            return
        group = self.policy.groups.get(id(obj))
        if group is not None:
            path = f"user.{group}.{name}"
            self.fields.add(path)
            self.fact_ids.update(self.policy.paths.get(path, ()))

    def g_item(self, obj: Any, key: Any) -> Any:
        """Subscript only plain containers."""
        if type(obj) in _SUBSCRIPTABLE:
            return obj[key]
        raise NotAllowed(f"{type(obj).__name__} cannot be subscripted in a query")

    def g_slice(self, lower: Any, upper: Any, step: Any) -> slice:
        """Slices of ints only (a slice of anything else could smuggle objects into indexing)."""
        for part in (lower, upper, step):
            if part is not None and type(part) is not int:
                raise NotAllowed("slice bounds must be integers")
        return slice(lower, upper, step)

    def g_binop(self, op: str, a: Any, b: Any) -> Any:
        """Apply op after checking the result cannot blow past the size caps."""
        lim = self.limits
        if op == "%":
            if isinstance(a, str):
                raise NotAllowed("%-formatting of strings is not allowed; use an f-string")
            return a % b
        if op == "*":
            seq, n = (a, b) if isinstance(b, int) else (b, a)
            if isinstance(seq, str | list | tuple) and isinstance(n, int):
                cap = lim.max_str if isinstance(seq, str) else lim.max_seq
                if len(seq) * max(n, 0) > cap:
                    raise LimitExceeded(f"repeating a sequence past {cap} items")
            elif (
                type(a) in _INTS
                and type(b) in _INTS
                and a.bit_length() + b.bit_length() > lim.max_int_bits
            ):
                raise LimitExceeded(f"integer result over {lim.max_int_bits} bits")
            return a * b
        if op == "**":
            if type(a) in _INTS and type(b) in _INTS and b > 0 and abs(a) > 1:
                if (a.bit_length() - 1) * b > lim.max_int_bits:
                    raise LimitExceeded(f"integer result over {lim.max_int_bits} bits")
            elif isinstance(a, Decimal) and isinstance(b, int) and abs(b) > lim.max_int_bits:
                raise LimitExceeded("Decimal exponent is too large")
            return a**b
        if op == "<<":
            shifts = type(a) in _INTS and type(b) in _INTS and b > 0 and a
            if shifts and a.bit_length() + b > lim.max_int_bits:
                raise LimitExceeded(f"integer result over {lim.max_int_bits} bits")
            return a << b
        # "+": concatenation is the only way to grow here.
        if isinstance(a, str | list | tuple) and isinstance(b, str | list | tuple):
            cap = lim.max_str if isinstance(a, str) else lim.max_seq
            if len(a) + len(b) > cap:
                raise LimitExceeded(f"concatenation past {cap} items")
        return a + b

    def namespace(self, today: dt.date) -> dict[str, Any]:
        """Globals for exec: curated builtins, facades, helpers, state, guards."""
        helpers = {k: _Named(k, f) for k, f in make_helpers(self.g_attr).items()}
        ns: dict[str, Any] = {
            "__builtins__": dict(self.builtins),
            "user": self.policy.user,
            "today": today,
            "date": dt.date,
            "timedelta": dt.timedelta,
            "Counter": Counter,
            "_g_attr": self.g_attr,
            "_g_item": self.g_item,
            "_g_slice": self.g_slice,
            "_g_binop": self.g_binop,
            **self.facades,
            **helpers,
        }
        return ns

    def report(self) -> dict[str, list[str]]:
        """What the program read, for explain."""
        return {
            "records": sorted(self.records),
            "fields": sorted(self.fields),
            "fact_ids": sorted(self.fact_ids),
        }


_INTS = (int, bool)
_SUBSCRIPTABLE = frozenset({list, tuple, str, dict, Counter, defaultdict, MappingProxyType, range})


# -- the result encoder --------------------------------------------------------------------


def encode_result(value: Any, policy: Policy, limits: Limits) -> str:
    """Canonical JSON of a result: only plain data crosses back to the host."""
    plain = _plain(value, policy, limits, 0)
    text = json.dumps(
        plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    if len(text) > limits.max_result_bytes:
        raise QueryFailure("bad_result", f"the result is over {limits.max_result_bytes} bytes")
    return text


def _bad(value: Any, hint: str = "") -> QueryFailure:
    return QueryFailure("bad_result", f"a result cannot contain a {type(value).__name__}{hint}")


def _plain(value: Any, policy: Policy, limits: Limits, depth: int) -> Any:
    if depth > limits.max_result_depth:
        raise QueryFailure("bad_result", f"the result nests deeper than {limits.max_result_depth}")
    kind = type(value)
    if kind is str:
        return hide_host(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        if value.bit_length() > limits.max_int_bits:
            raise QueryFailure("bad_result", "an integer in the result is too large")
        return value
    if kind is float:
        if not math.isfinite(value):
            raise QueryFailure("bad_result", "the result contains NaN or infinity")
        return value
    if kind is Decimal:
        if not value.is_finite():
            raise QueryFailure("bad_result", "the result contains a non-finite Decimal")
        return str(value)
    if kind in (dt.date, dt.datetime):
        return value.isoformat()
    if kind is dt.timedelta:
        return {"days": value.days, "seconds": value.seconds}
    d = depth + 1
    if kind in _SEQUENCES:
        return [_plain(v, policy, limits, d) for v in value]
    if kind in (set, frozenset):
        items = [_plain(v, policy, limits, d) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    if kind in _MAPPINGS:
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = _key(k, policy, limits, d)
            if key in out:
                raise QueryFailure("bad_result", f"two result keys both read {key!r} in JSON")
            out[key] = _plain(v, policy, limits, d)
        return out
    if kind in _VIEWS:
        return [_plain(v, policy, limits, d) for v in value]
    fields = policy.records.get(kind)
    if fields is not None:
        return {f: _plain(getattr(value, f), policy, limits, d) for f in sorted(fields)}
    if kind in policy.attrs or kind is type:
        raise _bad(value)
    raise _bad(value, "; wrap iterators in list() and return plain values")


# What the host's memory layout and code shape would leak through a string the program made
# (`repr(map(...))`, `str(gen)`, an error naming a helper): "<map object at 0x7f..>" reads
# "<map object>", "make_helpers.<locals>.top_k()" reads "top_k()".
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,16}(?=>)")
_LOCALS = re.compile(r"\b[\w.]*<locals>\.")


def hide_host(text: str) -> str:
    """text without memory addresses or the host's nested function names."""
    if "0x" in text:
        text = _ADDRESS.sub("", text)
    if "<locals>" in text:
        text = _LOCALS.sub("", text)
    return text


def _key(k: Any, policy: Policy, limits: Limits, depth: int) -> str:
    if type(k) is str:
        return hide_host(k)
    plain = _plain(k, policy, limits, depth)
    if isinstance(plain, str):
        return plain
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_SEQUENCES = frozenset({list, tuple, type(dt.date(2000, 1, 1).isocalendar())})
_MAPPINGS = frozenset({dict, Counter, defaultdict, MappingProxyType})
_VIEWS = frozenset({type({}.keys()), type({}.values()), type({}.items())})


def query_line(tb: Any) -> int | None:
    """Line of the innermost program frame in a traceback."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<query>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run(code: Any, guards: Guards, today: dt.date) -> Any:
    """Execute compiled code in a fresh namespace; return the value of the last expression."""
    ns = guards.namespace(today)
    exec(code, ns)
    return ns["_result"]


def execute(
    source: str, policy: Policy, today: dt.date, limits: Limits, explain: bool
) -> dict[str, Any]:
    """Compile, run and encode one program; every failure becomes a typed QueryFailure dict."""
    try:
        code = compiled(source, policy.all_attrs, limits)
        guards = Guards(policy, limits, explain)
        try:
            value = run(code, guards, today)
        except NotAllowed as exc:
            raise QueryFailure("not_allowed", str(exc), query_line(exc.__traceback__)) from None
        except (LimitExceeded, MemoryError, RecursionError, OverflowError) as exc:
            msg = str(exc) if isinstance(exc, LimitExceeded) else _LIMIT_TEXT[type(exc)]
            raise QueryFailure("limit_exceeded", msg, query_line(exc.__traceback__)) from None
        except Exception as exc:
            line = query_line(exc.__traceback__)
            msg = hide_host(f"{type(exc).__name__}: {exc}".splitlines()[0])[:300]
            if isinstance(exc, ValueError) and "limit" in msg and "digits" in msg:
                raise QueryFailure("limit_exceeded", msg, line) from None
            raise QueryFailure("runtime_error", msg, line) from None
        except BaseException as exc:  # SystemExit & co. must never leave the child's control.
            raise QueryFailure(
                "runtime_error", f"{type(exc).__name__} raised", query_line(exc.__traceback__)
            ) from None
        text = encode_result(value, policy, limits)
        out: dict[str, Any] = {"ok": True, "result_json": text}
        if explain:
            out["explain"] = guards.report()
        return out
    except QueryFailure as exc:
        return {"ok": False, "error": {"type": exc.code, "message": exc.message, "line": exc.line}}


_LIMIT_TEXT = {
    MemoryError: "the query ran out of its memory allowance",
    RecursionError: "the query recursed too deeply",
    OverflowError: "a number grew too large",
}
