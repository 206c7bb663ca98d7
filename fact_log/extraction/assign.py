"""Value-to-field assignment: a learned choice of which value a record's sentence says fills
which of its fields.

New writers defeat the extractors less by facts invented from nothing than by a stated fact
read half (a trip with no return day, a payment with no payee) or with one value in the
wrong field (the start read as the end, the other day of the sentence). Hand-written per-frame
rules for "which value goes where" do not carry over to new writers; this module learns one
general rule from the tuning sets instead.

For a record (a collection path, from the rules or the frames) and its window (its sentence
and the one after it), every field of a kind the general parsers read (slots.py: a day or a
time for a date or time field of the catalog, an amount for a money field, and for a text
field a frame's slot reads as a party or a place, any party or place the parsers read) is
paired with every value of that kind the window says. Each pair is described by
sentence-structure features only (`pairs`): the field's name, the words of its name, its
type and its frame slot's pick; the words just before and after the value ("until", "from",
"back", "by", ...), alone and crossed with those; its order among the values of its kind
(first, last, earliest, latest); whether the record holds it in this field or in another
(its value, or the same words read another way), whether another fact of the message holds
it, how far it sits from the record's other values and on which side; whether its clause is
a question or says "not"; whether it is in the record's sentence or the next.

A logistic regression over these (sparse binary features, full-batch Adagrad, weights
shipped as data: fact_log/assign_weights.npz, ~160 kB) gives per pair the probability the
value is the field's; it is trained by bench/assign_cv.py on the tuning sets' gold, a value
positive for a field when it equals the expected fact's value. `decide` then fills an empty
field with its best value when that value is the only one to clear the shipped `fill`
threshold (two that clear it contest the field: it stays empty, and the guard withholds the
record as before) and no fact of the message holds it; it replaces a held value when another
beats it by the shipped `margin` (training chose never: 2.0); one value fills one field.
Thresholds are chosen leave-one-set-out inside the training sets only.

Retrain (deterministic: the same tuning sets give byte-identical weights):

    OPENBLAS_NUM_THREADS=1 python bench/assign_cv.py --train   # fact_log/assign_weights.npz

Measured leave-one-set-out by `python bench/assign_cv.py` (bench/RESULTS.md, "Learned
value-to-field assignment"). Switched by UAC_ASSIGN (1 on, 0 off; `ON_BY_DEFAULT` when
unset: on, as its leave-one-set-out gain on the tuning sets decided); UAC_ASSIGN_WEIGHTS
names another weights file (a fold's).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.fact_log.extraction.lazy import compile_kept
from uac.fact_log.extraction.patterns.text import clause_span
from uac.fact_log.extraction.slots import Found, parser

if TYPE_CHECKING:  # NumPy loads at the first use of a model
    import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "assign_weights.npz"
# Whether the assignment runs when UAC_ASSIGN is not set (bench/RESULTS.md says why)
ON_BY_DEFAULT = True
_MAX_VALUES = 12  # values of one kind weighed per field: a long list is bounded
# Catalog field types and the parser that reads their values
_BY_TYPE = {"date": "date", "datetime": "datetime", "money": "amount"}
# The parsers whose values a field of each kind may take: a text field of a frame slot that
# reads a party (a name, a payee, a provider, ...) takes any party the parsers read, one of a
# place any place (a place slot fills the record's city)
_PARSERS = {
    "date": ("date",),
    "datetime": ("datetime",),
    "amount": ("amount",),
    "party": ("name", "payee", "provider", "bank", "service", "person", "full_name"),
    "place": ("venue", "city"),
}
_KIND_OF = {p: k for k in ("party", "place") for p in _PARSERS[k]} | {"place": "place"}
_TOKEN = compile_kept(r"[a-z]+|[^\w\s]")
# a value said as not being the one ("renews 13.12., not 03.12."), searched in the text
# before it: the guard (abstain.py) reads it too
NEGATED = compile_kept(r"\bnot\s+(?:on\s+)?(?:the\s+)?$", re.I)
_CLAUSE = compile_kept(r"[,;:–—]|\b(?:and|but|because|since|so|then)\b", re.I)
_ISO = compile_kept(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class Field:
    """A field of a record that values of one parser kind may fill."""

    name: str
    type: str  # the catalog's type (date, datetime, money, str)
    kind: str  # the parser reading its values
    role: str  # the frame slot's pick and order ("second", "last|end"); "" if undeclared
    prefer: str = "future"  # a day said without its year: the coming one or the last one


@dataclass(frozen=True, slots=True)
class Pair:
    """One value said in the sentence, offered for one field, and what describes it."""

    field: Field
    found: Found
    value: Any  # what the field would hold
    current: bool  # the record holds it in this field
    features: tuple[str, ...]


def fields_of(catalog: Any, path: str, frames: Sequence[Any]) -> list[Field]:
    """The fields of a path's records that values of a parsed kind may fill: every date,
    time and money field of the catalog, and each text field a frame's slot reads with a
    name, party or place parser (a place slot fills the record's city)."""
    coll = catalog.collection(path)
    if coll is None:
        return []
    spec = coll.spec.fields
    slots: dict[str, Any] = {}
    for frame in frames:
        for slot in frame.slots:
            slots.setdefault(slot.field, slot)
            if slot.type.split("@")[0] == "place" and "city" in spec:
                slots.setdefault("city", slot)
    out = []
    for name, fspec in spec.items():
        slot = slots.get(name)
        role = f"{slot.pick}|{slot.order or ''}" if slot is not None else ""
        prefer = "past" if slot is not None and slot.prefer == "past" else "future"
        if fspec.type in _BY_TYPE:
            out.append(Field(name, fspec.type, _BY_TYPE[fspec.type], role, prefer))
        elif fspec.type == "str" and slot is not None:
            kind = _KIND_OF.get(slot.type.split("@")[0])
            if kind is not None:
                out.append(Field(name, "str", kind, role, prefer))
    return out


def _atoms(value: Any) -> set[str]:
    """A value as compared: a day by its date, a number by its value, a text casefolded."""
    if value is None:
        return set()
    if isinstance(value, dict):
        return {a for v in value.values() for a in _atoms(v)}
    if isinstance(value, list | tuple | set):
        return {a for v in value for a in _atoms(v)}
    if isinstance(value, dt.date):
        return {value.isoformat()[:10]}
    text = str(value).strip()
    if _ISO.match(text):
        return {text[:10]}
    try:
        return {str(Decimal(text).normalize())}
    except InvalidOperation:
        return {text.casefold()}


def _field_value(field: Field, found: Found) -> Any:
    v = found.value
    if isinstance(v, dict):
        return v.get("amount") if field.type == "money" else v.get("city")
    return v


def _words(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _bucket(n: int, edges: Sequence[int]) -> str:
    return str(next((i for i, e in enumerate(edges) if n <= e), len(edges)))


def pairs(
    catalog: Any,
    path: str,
    value: dict[str, Any],
    sentence: str,
    today: dt.date,
    frames: Sequence[Any] = (),
    carried: frozenset[str] = frozenset(),
    own: tuple[int, int] | None = None,
) -> list[Pair]:
    """Every (field, value said) pair of a record's window (its sentence, and the one after
    it), with its features; `own` is the span of the record's sentence in `sentence` (all
    of it when None)."""
    own = own or (0, len(sentence))
    fields = fields_of(catalog, path, frames)
    held: dict[str, set[str]] = {f.name: _atoms(value.get(f.name)) for f in fields}
    found: dict[tuple[str, str], list[Found]] = {}
    by: dict[tuple[int, int], str] = {}  # a span -> the parser that read it first
    for kind, prefer in sorted({(f.kind, f.prefer) for f in fields}):
        spans: dict[tuple[int, int], Found] = {}
        for name in _PARSERS[kind]:
            for h in parser(name)(sentence, today, "past" if prefer == "past" else "future"):
                if (h.start, h.end) not in spans:
                    spans[h.start, h.end] = h
                    by.setdefault((h.start, h.end), name)
        hits = sorted(spans.values(), key=lambda h: (h.start, h.end))
        found[kind, prefer] = hits[:_MAX_VALUES]
    # where the record's held values are said (any kind), for distances
    held_spans: dict[str, list[Found]] = {}
    for f in fields:
        for h in found[f.kind, f.prefer]:
            if _atoms(_field_value(f, h)) & held[f.name] and held[f.name]:
                held_spans.setdefault(f.name, []).append(h)
    out: list[Pair] = []
    for f in fields:
        hits = found[f.kind, f.prefer]
        if not hits:
            continue
        n = len(hits)
        vals = [_field_value(f, h) for h in hits]
        order = sorted(range(n), key=lambda i: (str(vals[i]), i))
        name_words = [w for w in f.name.split("_") if w]
        for i, h in enumerate(hits):
            v = vals[i]
            if v is None:
                continue
            atoms = _atoms(v)
            before = _words(sentence[max(0, h.start - 40) : h.start])[-3:]
            after = _words(sentence[h.end : h.end + 30])[:2]
            p1 = before[-1] if before else "^"
            p2 = before[-2] if len(before) > 1 else "^"
            p3 = before[-3] if len(before) > 2 else "^"
            n1 = after[0] if after else "$"
            n2 = after[1] if len(after) > 1 else "$"
            cur = bool(atoms & held[f.name])
            others = [s for g, ss in held_spans.items() if g != f.name for s in ss]
            # another field holds it: its value, or the same words read another way
            other = any(atoms & held[g] for g in held if g != f.name) or any(
                s.start < h.end and h.start < s.end for s in others
            )
            rank = "only" if n == 1 else "first" if i == 0 else "last" if i == n - 1 else "mid"
            chrono = (
                ""
                if n == 1
                else ("early" if order[0] == i else "late" if order[-1] == i else "midc")
            )
            dist = min((abs(s.start - h.start) for s in others), default=-1)
            rel = (
                ""
                if not others
                else (
                    "before"
                    if all(h.start < s.start for s in others)
                    else "after"
                    if all(h.start > s.start for s in others)
                    else "between"
                )
            )
            clause = clause_span(sentence, h.start)
            same_clause = any(clause_span(sentence, s.start) == clause for s in others)
            asked = sentence[clause[1] : clause[1] + 1] == "?" or (
                sentence.rstrip().endswith("?") and _CLAUSE.search(sentence, h.end) is None
            )
            negated = bool(NEGATED.search(sentence, 0, h.start))
            where = (
                "own" if own[0] <= h.start < own[1] else "after" if h.start >= own[1] else "before"
            )
            base = [
                f"p1={p1}",
                f"p2={p2}",
                f"p1p2={p2}_{p1}",
                f"p3={p3}",
                f"n1={n1}",
                f"n2={n2}",
                f"rank={rank}",
                f"chrono={chrono}",
                f"n={_bucket(n, (1, 2, 3))}",
                f"cur={int(cur)}",
                f"other={int(other)}",
                f"empty={int(not held[f.name])}",
                f"carried={int(bool(atoms & carried))}",
                f"dist={_bucket(dist, (-1, 8, 20, 40, 80))}",
                f"rel={rel}",
                f"sameclause={int(same_clause)}",
                f"asked={int(asked)}",
                f"negated={int(negated)}",
                f"in={where}",
                f"by={by.get((h.start, h.end), '')}",
            ]
            feats = ["bias", f"kind={f.kind}"]
            heads = [f"f={f.name}", f"t={f.type}", *(f"w={w}" for w in name_words)]
            if f.role:
                heads.append(f"r={f.role}")
            feats += heads
            for b in base:
                feats.append(b)
                feats += [f"{hd}|{b}" for hd in heads]
            out.append(Pair(f, h, v, cur, tuple(dict.fromkeys(feats))))
    return out


@dataclass(frozen=True, slots=True)
class Weights:
    """A trained assignment: its feature names, their weights and the two thresholds."""

    vocab: tuple[str, ...]
    coef: np.ndarray
    bias: float
    fill: float  # an empty field takes its best value at this probability or above
    margin: float  # a held value gives way to one this much more probable

    @property
    def index(self) -> dict[str, int]:
        return _index_of(self.vocab)

    def probability(self, feats: Sequence[tuple[str, ...]]) -> np.ndarray:
        """P(the value is the field's) of each pair's features."""
        import numpy as np

        idx = self.index
        z = np.array(
            [self.bias + sum(float(self.coef[idx[f]]) for f in fs if f in idx) for fs in feats]
        )
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def save(self, path: Path) -> None:
        """Write the weights file (the same bytes for the same weights)."""
        import numpy as np

        with open(path, "wb") as fh:
            np.savez_compressed(
                fh,
                vocab=np.array(self.vocab, dtype=str),
                coef=self.coef.astype(np.float64),
                bias=np.array(self.bias, dtype=np.float64),
                fill=np.array(self.fill, dtype=np.float64),
                margin=np.array(self.margin, dtype=np.float64),
            )


@functools.lru_cache(maxsize=8)
def _index_of(vocab: tuple[str, ...]) -> dict[str, int]:
    return {f: i for i, f in enumerate(vocab)}


def load(path: Path = WEIGHTS_FILE) -> Weights | None:
    """The weights of a file, or None when it is absent or unreadable."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            return Weights(
                vocab=tuple(str(s) for s in data["vocab"]),
                coef=data["coef"],
                bias=float(data["bias"]),
                fill=float(data["fill"]),
                margin=float(data["margin"]),
            )
    except (OSError, KeyError, ValueError):
        return None


def shipped() -> Weights | None:
    """The weights in use: the shipped file, or the one UAC_ASSIGN_WEIGHTS names."""
    return _cached(os.environ.get("UAC_ASSIGN_WEIGHTS") or str(WEIGHTS_FILE))


@functools.cache
def _cached(path: str) -> Weights | None:
    return load(Path(path))


def available() -> bool:
    """Whether the assignment runs: switched on and its weights present."""
    switch = os.environ.get("UAC_ASSIGN", "1" if ON_BY_DEFAULT else "0")
    return switch != "0" and shipped() is not None


def train(
    feats: Sequence[tuple[str, ...]],
    labels: np.ndarray,
    *,
    min_count: int = 2,
    l2: float = 1.0,
    steps: int = 400,
) -> tuple[tuple[str, ...], np.ndarray, float]:
    """A logistic regression of labels (1: the value is the field's) on sparse binary
    features: the features said at least `min_count` times, an L2 penalty on every weight but
    the bias, full-batch Adagrad steps in float64 in a fixed order. No randomness: the same
    rows give the same weights."""
    import numpy as np

    counts: dict[str, int] = {}
    for fs in feats:
        for f in fs:
            counts[f] = counts.get(f, 0) + 1
    vocab = tuple(sorted(f for f, c in counts.items() if c >= min_count))
    index = {f: i for i, f in enumerate(vocab)}
    cols = [np.array([index[f] for f in fs if f in index], dtype=np.int64) for fs in feats]
    lengths = np.array([len(c) for c in cols], dtype=np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    row = np.repeat(np.arange(len(cols)), lengths)
    y = labels.astype(np.float64)
    w = np.zeros(len(vocab))
    b = 0.0
    gw = np.full(len(vocab), 1e-8)
    gb = 1e-8
    rate = 0.5
    n = max(len(y), 1)
    for _ in range(steps):
        z = np.bincount(row, weights=w[col], minlength=len(y)) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        err = p - y
        grad = np.bincount(col, weights=err[row], minlength=len(vocab)) / n + l2 * w / n
        gbias = float(err.sum()) / n
        gw += grad * grad
        gb += gbias * gbias
        w -= rate * grad / np.sqrt(gw)
        b -= rate * gbias / np.sqrt(gb)
    return vocab, w, b


def decide(found: Sequence[Pair], probs: np.ndarray, fill: float, margin: float) -> dict[str, Pair]:
    """Per field, the pair it takes: its best value when the field is empty and that value
    is the only one to clear `fill` (two that clear it contest the field: it stays empty,
    and the guard withholds the record as before) and no fact of the message holds it, or
    when a held value said in the sentence is beaten by `margin`. One value fills one field:
    a value two fields would take goes to the one that wants it most. Fields not listed keep
    what they hold."""
    by_field: dict[str, list[tuple[float, int, Pair]]] = {}
    for i, (pair, p) in enumerate(zip(found, probs, strict=True)):
        by_field.setdefault(pair.field.name, []).append((float(p), i, pair))
    chosen: list[tuple[float, int, str, Pair]] = []
    for name, scored in by_field.items():
        best_p, i, best = max(scored, key=lambda s: (s[0], -s[1]))
        held = [s for s in scored if s[2].current]
        if "other=0" not in best.features:
            continue  # another field holds it: one value, one role
        clearing = sum(p >= fill for p, _i, _pair in scored)
        empty = "empty=1" in best.features and "carried=0" in best.features
        if (empty and best_p >= fill and clearing == 1) or (
            held and not best.current and best_p - max(s[0] for s in held) >= margin
        ):
            chosen.append((best_p, i, name, best))
    out: dict[str, Pair] = {}
    taken: set[tuple[int, int]] = set()
    for _p, _i, name, pair in sorted(chosen, key=lambda c: (-c[0], c[1])):
        span = (pair.found.start, pair.found.end)
        if span not in taken:
            taken.add(span)
            out[name] = pair
    return out


def assigned(
    catalog: Any,
    path: str,
    value: dict[str, Any],
    sentence: str,
    today: dt.date,
    frames: Sequence[Any] = (),
    carried: frozenset[str] = frozenset(),
    weights: Weights | None = None,
    own: tuple[int, int] | None = None,
) -> dict[str, tuple[Any, Found]]:
    """The fields the model fills or changes in a record: field -> (value, its span in the
    sentence). A money field's currency comes with it when the record has none."""
    weights = weights or shipped()
    if weights is None:
        return {}
    found = pairs(catalog, path, value, sentence, today, frames, carried, own)
    if not found:
        return {}
    probs = weights.probability([p.features for p in found])
    out: dict[str, tuple[Any, Found]] = {}
    spec = catalog.collection(path).spec.fields
    for name, pair in decide(found, probs, weights.fill, weights.margin).items():
        out[name] = (pair.value, pair.found)
        money = pair.found.value
        if (
            pair.field.type == "money"
            and isinstance(money, dict)
            and money.get("currency")
            and "currency" in spec
            and not value.get("currency")
        ):
            out["currency"] = (money["currency"], pair.found)
    return out
