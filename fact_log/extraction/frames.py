"""Frames: which catalog path a window of conversation talks about, and its slots filled.

Hand-written patterns do not carry over to writers they were not written for, so this
extractor decides *what a window is about* by meaning and fills *values* by type:

1. windows: each sentence of the message alone and with the sentence before it (which may be
   the last sentence of the session's previous message: "my renewed passport came." then
   "New expiry is March 5, 2035." is one frame);
2. frames: the shipped sentence encoder (encoder.py) embeds the windows; the nearest labelled
   examples of each frame (fact_log/frames.toml and fact_log/frame_examples.jsonl — data, not
   code) vote, against examples of messages that teach nothing ("none") or fill paths no
   frame fills ("other"); a frame is chosen when its score beats both by its margin and
   reaches its threshold — that of a window saying one of its cues, or the higher `uncued`
   one (thresholds measured leave-one-set-out: fact_log/frame_calibration.toml, written by
   bench/frame_calibrate.py); frames scoring close to the best are read too;
3. slots: the general parsers of slots.py fill the frame's fields from the message's own
   sentence, so every value has a span the evidence stage can verify;
4. guards: a sentence that is a question, hypothetical, negated or about someone else yields
   nothing; a state frame ignores a plan, the future and a past date still to come; a record
   frame leaves a correction to the rules.

The pipeline reads every sentence and merges with the rules (`merge`): where both read the
same path in the same sentence, the rule's candidate is the answer. Nothing here
runs without the encoder's weights package (`available()`), and nothing is imported by read
commands: the example vectors ship with the package (`frame_vectors/<digest>.npy`, written
by `bench/frame_vectors.py`), or, where the examples or weights changed since, are computed
on first use and cached on disk; both are keyed by the examples and the weights.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder_files
from uac.fact_log.extraction.candidate import Candidate, Reading
from uac.fact_log.extraction.lazy import compile_kept
from uac.fact_log.extraction.patterns.text import guarded, named_subject, sentences, someone_else
from uac.fact_log.extraction.slots import Found, continuing, offset_from, parser, timed
from uac.fact_log.extraction.timemodel import named_span
from uac.fact_log.parsed_data import load_jsonl, load_toml

if TYPE_CHECKING:  # NumPy and the encoder load when a window is first encoded (votes)
    import numpy as np

_DATA = Path(__file__).resolve().parents[1]
FRAMES_FILE = _DATA / "frames.toml"
CALIBRATION_FILE = _DATA / "frame_calibration.toml"
EXAMPLES_FILE = _DATA / "frame_examples.jsonl"
# The example vectors computed once for the shipped examples and weights: a first
# extraction on a new machine would otherwise encode every example (seconds of CPU).
SHIPPED_VECTORS = _DATA / "frame_vectors"
NONE = "none"
OTHER = "other"  # examples about paths no frame fills
_TOP_K = 3
_MAX_WINDOWS = 64  # a 100 kB message is read in its first windows only: bounded time
_MAX_SENTENCE = 600  # characters of one sentence given to the encoder
_lock = threading.Lock()
CONTEXT_FILL = True  # required slots may come from the sentence before (a bench flips it)


@dataclass(frozen=True, slots=True)
class Slot:
    """One field of a frame and how to fill it."""

    field: str
    type: str
    required: bool = False
    prefer: str = "future"
    pick: str = "first"
    near: tuple[str, ...] = ()
    order: str | None = None
    default: str | None = None
    default_if: tuple[str, ...] = ()  # the default applies only when one of these is said
    if_said: tuple[str, ...] = ()  # the slot is filled only when one of these is said
    unless_said: tuple[str, ...] = ()  # ... and never when one of these is
    when: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """What a window may be about: one catalog path, its cues, slots and threshold."""

    name: str
    path: str
    cues: tuple[str, ...]
    slots: tuple[Slot, ...]
    threshold: float
    confidence: float
    examples: tuple[str, ...]
    holder: str = "user"  # "other": the frame is about someone else (a contact)
    emit: bool = True  # False: recognised (it wins its windows) but its slots are not emitted
    plans: bool = False  # True: a plan or a need is this frame's fact (a trip, an event, a task)
    anchors: tuple[str, ...] = ()  # slot types whose value in a window counts as a cue
    uncued: float | None = None  # threshold of a window saying no cue (None: never chosen)
    margin: float = 0.0  # how far the score must beat the best of "none" and "other"


@dataclass(frozen=True, slots=True)
class Window:
    """A sentence of the message (offsets into it) and the text the frame is decided on."""

    start: int
    end: int
    sentence: str
    context: str
    previous: str = ""  # the sentence before (from the session's previous message for the first)
    named: tuple[dt.date, dt.date] | None = None  # the days the conversation last named


def available() -> bool:
    """Whether frames can run here (the encoder's weights are installed)."""
    return os.environ.get("UAC_FRAMES", "1") != "0" and encoder_files.available()


@functools.cache
def load_frames(path: Path = FRAMES_FILE) -> tuple[Frame, ...]:
    """The frames of the data file, in file order, with their calibrated thresholds
    (fact_log/frame_calibration.toml, for the shipped frames file only)."""
    raw = load_toml(path)["frames"]
    shipped = path == FRAMES_FILE and CALIBRATION_FILE.is_file()
    table = load_calibration(CALIBRATION_FILE) if shipped else {}
    return tuple(
        calibrated(
            Frame(
                name=name,
                path=spec["path"],
                cues=tuple(c.lower() for c in spec.get("cues", ())),
                slots=tuple(
                    Slot(
                        **{
                            **s,
                            "near": tuple(s.get("near", ())),
                            **{
                                k: tuple(w.lower() for w in s.get(k, ()))
                                for k in ("default_if", "if_said", "unless_said")
                            },
                        }
                    )
                    for s in spec.get("slots", ())
                ),
                threshold=float(spec.get("threshold", 0.45)),
                confidence=float(spec.get("confidence", 0.7)),
                examples=tuple(spec.get("examples", ())),
                holder=spec.get("holder", "user"),
                emit=bool(spec.get("emit", True)),
                plans=bool(spec.get("plans", False)),
                anchors=tuple(spec.get("anchors", ())),
                uncued=spec.get("uncued"),
                margin=float(spec.get("margin", 0.0)),
            ),
            table,
        )
        for name, spec in raw.items()
    )


Calibration = dict[str, dict[str, Any]]
_CALIBRATED = ("threshold", "uncued", "margin", "emit")


def load_calibration(path: Path) -> Calibration:
    """Per frame name, the thresholds measured leave-one-set-out (bench/frame_calibrate.py)."""
    raw = load_toml(path)
    return {name: dict(spec) for name, spec in raw.get("frames", {}).items()}


def calibrated(frame: Frame, table: Calibration) -> Frame:
    """The frame with its measured threshold, uncued threshold, margin and emit flag; a
    frame the table does not name keeps its own (a new frame, before it is measured)."""
    spec = table.get(frame.name)
    if spec is None:
        return frame
    fields = {k: spec[k] for k in _CALIBRATED if k in spec}
    if "uncued" not in spec:
        fields["uncued"] = None
    return replace(frame, **fields)


_override: Calibration | None = None


def active_frames() -> tuple[Frame, ...]:
    """The frames a message is read with: the shipped ones, or (for evaluation) those of a
    calibration measured without the set being scored (`using_calibration`)."""
    shipped = load_frames()
    if _override is None:
        return shipped
    return tuple(calibrated(f, _override) for f in shipped)


@contextlib.contextmanager
def using_calibration(table: Calibration) -> Iterator[None]:
    """For evaluation only: read with these thresholds instead of the shipped ones."""
    global _override
    before = _override
    _override = table
    try:
        yield
    finally:
        _override = before


def labelled_examples() -> list[tuple[str, str]]:
    """(label, text) of every example: the frames' own, then the examples file's."""
    return [(label, text) for label, text, _ in _sourced_examples()]


def _sourced_examples() -> list[tuple[str, str, str]]:
    """(label, text, tuning set it came from; "frames" for the frames' own)."""
    out = [(f.name, t, "frames") for f in load_frames() for t in f.examples]
    if EXAMPLES_FILE.is_file():
        for row in load_jsonl(EXAMPLES_FILE):
            out.append((row["frame"], row["text"], str(row.get("from", "")).split(":")[0]))
    return out


class FrameIndex:
    """The example vectors and their labels, for nearest-example votes."""

    def __init__(self, labels: list[str], vectors: np.ndarray) -> None:
        import numpy as np

        self.labels = sorted(set(labels))
        named = np.array(labels)  # once, not once per label (~9 ms of every first message)
        self._rows = {lab: np.flatnonzero(named == lab) for lab in self.labels}
        self.vectors = vectors
        # The labels with at least _TOP_K examples, one row of their examples' columns each,
        # padded with the column after the last (-inf): one partition reads every label.
        self._full = [lab for lab in self.labels if len(self._rows[lab]) >= _TOP_K]
        width = max((len(self._rows[lab]) for lab in self._full), default=0)
        self._gather = np.full((len(self._full), width), len(vectors), dtype=np.intp)
        for i, lab in enumerate(self._full):
            self._gather[i, : len(self._rows[lab])] = self._rows[lab]

    def scores(self, windows: np.ndarray) -> dict[str, np.ndarray]:
        """Per label, the mean similarity of each window to its nearest examples."""
        import numpy as np

        # row by row: OpenBLAS rounds a row of a product differently with the number of rows
        # around it, and a window's score must not depend on which others are read with it
        sims = np.empty((len(windows), len(self.vectors) + 1), dtype=np.float32)
        sims[:, -1] = -np.inf
        for i in range(len(windows)):
            sims[i, :-1] = windows[i : i + 1] @ self.vectors.T
        # Each label's _TOP_K nearest, largest first, averaged: the values, in the order, of
        # one partition per label (NumPy's selection for a kth this small leaves the first
        # k in order; sorted here all the same), so the means are those to the bit.
        full: dict[str, np.ndarray] = {}
        if self._full:
            near = np.partition(-sims[:, self._gather], _TOP_K - 1, axis=-1)[..., :_TOP_K]
            means = np.ascontiguousarray((-np.sort(near, axis=-1)).mean(axis=-1).T)
            full = dict(zip(self._full, means, strict=True))
        out = {}
        for lab, rows in self._rows.items():
            if lab in full:
                out[lab] = full[lab]
                continue
            part = sims[:, rows]  # fewer examples than _TOP_K: the mean of them all
            top = -np.partition(-part, len(rows) - 1, axis=1)
            out[lab] = top.mean(axis=1)
        return out


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "uac"


def examples_digest(examples: list[tuple[str, str]]) -> str:
    """The key of the example vectors: the examples and the encoder's weights."""
    folder = encoder_files.model_dir()
    weights = folder / "model.safetensors" if folder else None
    return hashlib.sha256(
        json.dumps(examples, ensure_ascii=False).encode()
        + (str(weights.stat().st_size).encode() if weights else b"")
    ).hexdigest()[:16]


def _load_vectors(path: Path, rows: int) -> np.ndarray | None:
    """The vectors stored at path, or None if absent, torn or of another shape."""
    import numpy as np

    try:
        loaded = np.load(path)
    except (OSError, ValueError):
        return None
    return loaded if loaded.shape == (rows, encoder_files.DIM) else None


@functools.cache
def _index() -> FrameIndex:
    examples = labelled_examples()
    digest = examples_digest(examples)
    cached = _cache_dir() / f"frame-vectors-{digest}.npy"
    vectors = _load_vectors(SHIPPED_VECTORS / f"{digest}.npy", len(examples))
    if vectors is None:
        vectors = _load_vectors(cached, len(examples))
    if vectors is None:
        import numpy as np

        from uac.fact_log.extraction import encoder

        vectors = encoder.encode([t for _, t in examples])
        try:  # a cache: a read-only home only costs the next process the same work
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            with open(tmp, "wb") as fh:
                np.save(fh, vectors)
            os.replace(tmp, cached)
        except OSError:
            pass
    return FrameIndex([lab for lab, _ in examples], vectors)


_held_out: FrameIndex | None = None


def index() -> FrameIndex:
    """The process-wide example index, built (or read from the cache) on first use."""
    with _lock:
        return _held_out if _held_out is not None else _index()


@contextlib.contextmanager
def without_examples(sets: Iterable[str]) -> Iterator[FrameIndex]:
    """For evaluation only: the frames vote without the examples taken from these tuning
    sets (leave-one-set-out, so a set is scored as a writer the examples never saw)."""
    global _held_out
    left = set(sets)
    full = index()
    keep = [i for i, (_, _, src) in enumerate(_sourced_examples()) if src not in left]
    labels = labelled_examples()
    held = FrameIndex([labels[i][0] for i in keep], full.vectors[keep])
    _held_out = held
    try:
        yield held
    finally:
        _held_out = None


def windows(
    text: str, history: Sequence[tuple[str, dt.datetime]] = (), today: dt.date | None = None
) -> list[Window]:
    """Each sentence of text, with the sentence before it (from history for the first) and
    the days the session last named before it (`today` is the message's day: without it,
    the last earlier message's)."""
    spans = [s for s in sentences(text) if s.text.strip()][:_MAX_WINDOWS]
    previous = ""
    if history:
        earlier = [s.text for s in sentences(history[-1][0]) if s.text.strip()]
        previous = earlier[-1] if earlier else ""
    # the days the session last named: a bare "the 19th" is read among them (slots.continuing)
    named = next(
        (n for t, at in reversed(history) if (n := named_span(t[: _MAX_SENTENCE * 4], at.date()))),
        None,
    )
    if today is None and history:
        today = history[-1][1].date()
    out = []
    for span in spans:
        sentence = span.text[:_MAX_SENTENCE]
        context = f"{previous} {sentence}".strip() if previous else sentence
        win = Window(span.start, span.start + len(span.text), sentence, context, previous, named)
        out.append(win)
        previous = sentence
        if today is not None:  # a later sentence of the message reads the days this one named
            named = named_span(sentence, today) or named
    return out


def choose(
    found: dict[str, np.ndarray], frames: Iterable[Frame], at: int
) -> list[tuple[Frame, float]]:
    """The frames chosen for window `at`, best first."""
    none = max(float(found[lab][at]) for lab in (NONE, OTHER) if lab in found) if found else -1.0
    chosen = []
    for frame in frames:
        score = float(found[frame.name][at]) if frame.name in found else -1.0
        if score >= frame.threshold and score > none:
            chosen.append((frame, score))
    return sorted(chosen, key=lambda fs: -fs[1])


def cued(frame: Frame, text: str, today: dt.date) -> bool:
    """Whether the text says one of the frame's cues, or a value of one of its anchor slot
    types ("I'm on sertraline now": a drug name cues the medication frame)."""
    if _said(frame.cues, text):
        return True
    return any(_anchored(kind, text, today) for kind in frame.anchors)


@functools.lru_cache(maxsize=1024)
def _anchored(kind: str, text: str, today: dt.date) -> bool:
    # A message asks each window's text, then its sentence, then its chosen view, once per
    # frame with this anchor: the parse is a pure function of these, so it runs once.
    return bool(parser(kind)(text, today, "past"))


def _said(cues: tuple[str, ...], text: str) -> bool:
    if not cues:  # a frame without cues is decided by the encoder and its slots alone
        return True
    low = " " + text.lower()
    return any(_starts_a_word(c, low) for c in cues)


_ASCII_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def _starts_a_word(cue: str, low: str) -> bool:
    """`re.search("[^a-z]" + re.escape(cue), low)`: the cue said after a character that is
    not a letter a-z, found by substring search (the frames' ~300 cues would otherwise be
    compiled as as many regexes by the first message of every process)."""
    at = low.find(cue, 1)
    while at != -1:
        if low[at - 1] not in _ASCII_LOWER:
            return True
        at = low.find(cue, at + 1)
    return False


def _pick(slot: Slot, found: list[Found], sentence: str) -> Found | None:
    if not found:
        return None
    if slot.pick == "last":
        return found[-1]
    if slot.pick == "second":
        return found[1] if len(found) > 1 else None
    if slot.pick == "first_of_two":  # a range's start: only when the range has two ends
        return found[0] if len(found) > 1 else None
    if slot.pick == "near" and slot.near:
        low = sentence.lower()
        marks = [m.end() for w in slot.near for m in re.finditer(re.escape(w), low)]
        after = [(f.start - m, f) for f in found for m in marks if 0 <= f.start - m <= 40]
        if after:
            return min(after, key=lambda df: df[0])[1]
        return found[-1] if len(found) == 1 else None
    return found[0]


def fill(
    frame: Frame,
    sentence: str,
    today: dt.date,
    previous: str = "",
    named: tuple[dt.date, dt.date] | None = None,
) -> tuple[dict[str, Any], list[Found]] | None:
    """The frame's fields from one sentence, with the spans used; None when a required slot
    is empty. A required slot the sentence leaves empty may take its value from `previous`,
    the sentence before ("I got my ESTA approved." then "It's valid until June 1."); such a
    value has no span in the sentence, so at least one other slot must be filled from it.
    `named` is the days the conversation last named (a bare "the 19th" is read among them)."""
    with continuing(named):
        return _fill(frame, sentence, today, previous)


def _fill(
    frame: Frame, sentence: str, today: dt.date, previous: str
) -> tuple[dict[str, Any], list[Found]] | None:
    filled = fill_slots(frame, sentence, today, previous)
    return None if filled is None else (filled[0], list(filled[1].values()))


# -- reading slots: the frames' own filler, and what the guard (abstain.py) reads with it ---


def fill_slots(
    frame: Frame, sentence: str, today: dt.date, previous: str = ""
) -> tuple[dict[str, Any], dict[str, Found]] | None:
    """The frame's fields and, per field filled from the sentence, the value's span; None
    when a required slot is empty (see `fill`, which reads the days named before too)."""
    value: dict[str, Any] = {}
    used: dict[str, Found] = {}
    for slot in frame.slots:
        if not reads(slot, sentence):
            continue  # "I stopped it yesterday": the date is no start
        hit = _slot(slot, sentence, today)
        if hit is None and slot.required and previous:
            earlier = _slot(slot, previous, today)
            if earlier is not None:
                if slot.type in ("date", "datetime"):
                    # the day from before, moved by the offset and at the time said here ("the
                    # lease ends on 30 June." then "I must give notice a month before it.")
                    earlier = replace(earlier, value=offset_from(earlier.value, sentence))
                if slot.type == "datetime":
                    earlier = replace(earlier, value=timed(earlier.value, sentence))
                _put(value, slot, earlier)
                continue
        if hit is None:
            if slot.default == "today" and (
                not slot.default_if or _said(slot.default_if, sentence)
            ):
                value[slot.field] = today.isoformat()
                continue
            if slot.required:
                return None
            continue
        _put(value, slot, hit)
        used[slot.field] = hit
    _order_range(frame, value)
    return value, used


def reads(slot: Slot, sentence: str) -> bool:
    """Whether the slot reads the sentence: it says one of the slot's `if_said` words (when
    it has some) and none of its `unless_said` ("I stopped it yesterday": no start date)."""
    return not (
        (slot.if_said and not _said(slot.if_said, sentence))
        or (slot.unless_said and _said(slot.unless_said, sentence))
    )


def _slot(slot: Slot, text: str, today: dt.date) -> Found | None:
    return _pick(slot, slot_values(slot, text, today), text)


def slot_values(slot: Slot, text: str, today: dt.date) -> list[Found]:
    """Every value of the slot's type in the text, in order, with its span (on the side of
    today the slot's `when` asks for), whichever the slot would pick."""
    found = parser(slot.type)(text, today, "past" if slot.prefer == "past" else "future")
    if slot.when is not None:
        found = [f for f in found if _on_side(f.value, today, slot.when)]
    return found


def key_slot(frame: Frame, catalog: Catalog) -> Slot | None:
    """The slot naming which record of a collection the frame's fact is (a medication's name,
    an allergy's substance, a budget's category): the first required slot that fills a key
    field of the collection and is no date. None for an attribute path."""
    coll = catalog.collection(frame.path)
    if coll is None or frame.path in catalog.attributes:
        return None
    return next(
        (
            s
            for s in frame.slots
            if s.required and s.field in coll.spec.key and s.type not in ("date", "datetime")
        ),
        None,
    )


# What stands between two items of a list, once the other slots' values are taken out:
# "metformin, lisinopril and a statin", "penicillin & sulfa", "tetanus plus hep B",
# "£400 on groceries and £150 on eating out". A negation, another verb or another subject
# between two values makes them no list ("penicillin but not sulfa").
_LIST_GAP = compile_kept(
    r"\s*(?:,\s*(?:(?:and|plus|&)\s+)?|(?:and|plus|&|as well as)\s+|[&+/]\s*)"
    r"(?:(?:my|the|a|an|some|also|to|on|for|with|of)\s+){0,2}",
    re.I,
)
_FIRST_WORD = compile_kept(r"([^\W\d_]+)\s*(.*)")
_JOINING_WORD = compile_kept(r"\b(?:and|plus)\b|&", re.I)
_ITEM_SLOT_PICKS = ("first", "last")  # slots a list item may have a value of its own for


class Filled(NamedTuple):
    """One record a sentence fills: its fields, the spans of the values said in the
    sentence, and where its guards read up to (its first value, or the list's first item)."""

    value: dict[str, Any]
    used: list[Found]
    head: int


def fill_items(
    frame: Frame,
    sentence: str,
    today: dt.date,
    key: Slot | None,
    previous: str = "",
    named: tuple[dt.date, dt.date] | None = None,
) -> list[Filled]:
    """`fill`, one record per item when the sentence lists several values of the key slot
    ("I take metformin, lisinopril and a statin"): each item with its own span, its own
    value of a slot said once per item ("metformin 500mg and lisinopril 10mg") and the
    sentence's value of a slot said once for all ("tetanus and hep B on Monday"). One record
    (or none) when the key is said once or the frame has no key (`key_slot`)."""
    with continuing(named):
        filled = fill_slots(frame, sentence, today, previous)
        if filled is None:
            return []
        value, used = filled
        if key is not None and key.field in used:
            items = _items(frame, key, sentence, today, value, used)
            if items:
                return items
        spans = list(used.values())
        return [Filled(value, spans, min((f.start for f in spans), default=0))]


def _items(
    frame: Frame,
    key: Slot,
    sentence: str,
    today: dt.date,
    value: dict[str, Any],
    used: dict[str, Found],
) -> list[Filled]:
    others = {
        s.field: slot_values(s, sentence, today)
        for s in frame.slots
        if s is not key and (not s.if_said or _said(s.if_said, sentence))
    }
    items = _listed(
        slot_values(key, sentence, today), used[key.field], sentence, others, frame.cues
    )
    if len(items) < 2:
        return []
    own: dict[str, list[Found | None]] = {}
    for slot in frame.slots:
        hits = others.get(slot.field)
        if slot.field in value and hits and slot.pick in _ITEM_SLOT_PICKS:
            each = _each(hits, items)
            if each is not None:
                own[slot.field] = each
    head = min(f.start for f in [*used.values(), items[0]])  # the guards read the list's head
    out = []
    for i, item in enumerate(items):
        record = {**value, key.field: item.value}
        spans = {**used, key.field: item}
        for field, each in own.items():
            if each[i] is None:
                record.pop(field, None)
                spans.pop(field, None)
            else:
                record[field] = each[i].value
                spans[field] = each[i]
        if all(s.field in record for s in frame.slots if s.required):
            _order_range(frame, record)
            out.append(Filled(record, list(spans.values()), head))
    return out


def _listed(
    hits: list[Found],
    picked: Found,
    sentence: str,
    others: dict[str, list[Found]],
    cues: tuple[str, ...] = (),
) -> list[Found]:
    """The coordinated run of the key's values holding the picked one, a value said twice
    counted once. A word of the frame's cues right after an item is the item's own ("my flu
    jab and covid booster")."""
    spans = [(f.start, f.end) for found in others.values() for f in found]

    def joined(a: Found, b: Found) -> bool:
        between = list(sentence[a.end : b.start])
        for s, e in spans:  # an item's own values ("metformin 500mg, ...") are no gap
            for j in range(max(s, a.end), min(e, b.start)):
                between[j - a.end] = " "
        gap = " ".join("".join(between).split())
        head = _FIRST_WORD.match(gap)
        if head and head[2] and any(head[1].lower().startswith(c.strip()) for c in cues):
            # "flu jab and covid booster"; never a comma alone: "the shingles vaccine,
            # Shingrix, ..." names one vaccine twice
            gap = head[2] if _JOINING_WORD.search(head[2]) else head[0]
        return bool(gap) and _LIST_GAP.fullmatch(" " + gap + " ") is not None

    hits = sorted(hits, key=lambda f: f.start)
    if picked not in hits:
        return [picked]
    lo = hi = hits.index(picked)
    while lo > 0 and joined(hits[lo - 1], hits[lo]):
        lo -= 1
    while hi + 1 < len(hits) and joined(hits[hi], hits[hi + 1]):
        hi += 1
    run: list[Found] = []
    for f in hits[lo : hi + 1]:
        if all(str(f.value).lower() != str(g.value).lower() for g in run):
            run.append(f)
    return run


def _each(hits: list[Found], items: list[Found]) -> list[Found | None] | None:
    """Which of a slot's values belongs to which item; None when no value is said inside
    the list, so the sentence's value is every item's ("tetanus and hep B on Monday"). With
    as many values as items, one each in order ("£400 on groceries and £150 on eating out");
    else a value belongs to the item said before it ("metformin 500mg, lisinopril and a
    statin": the statin has no dose)."""
    first, last = items[0].start, items[-1].start
    if not any(first <= f.start < last for f in hits):
        return None
    if len(hits) == len(items):
        return list(hits)
    out: list[Found | None] = [None] * len(items)
    for f in hits:
        if f.start >= first:
            i = max(j for j, item in enumerate(items) if item.start <= f.start)
            out[i] = out[i] or f
    return out


def _put(value: dict[str, Any], slot: Slot, hit: Found) -> None:
    if isinstance(hit.value, dict):  # a place: city and country
        value.update({k: v for k, v in hit.value.items() if v is not None})
    else:
        value[slot.field] = hit.value


def _on_side(value: Any, today: dt.date, when: str) -> bool:
    day = dt.date.fromisoformat(value) if isinstance(value, str) else None
    if day is None:
        return True
    return day > today if when == "future" else day < today


def _order_range(frame: Frame, value: dict[str, Any]) -> None:
    start = next((s.field for s in frame.slots if s.order == "start"), None)
    end = next((s.field for s in frame.slots if s.order == "end"), None)
    if start and end and start in value and end in value and value[end] < value[start]:
        value[start], value[end] = value[end], value[start]


# A plan, a need or a wish said before the frame's values: "I need to sort out my visa for
# India", "we're thinking of getting travel insurance" state no fact of a frame that is a state
# (an expiry, an allergy, a payment); frames whose facts are plans (`plans = true`) keep them.
_INTENT = compile_kept(
    r"\b(?:need(?:s|ed)? to|have to|has to|got to|gotta|want(?:s|ed)? to|wanna"
    r"|plan(?:s|ned|ning)? to|hop(?:e|es|ing) to|tr(?:y|ying) to|should|must|might|could"
    r"|would|thinking (?:of|about)|consider(?:ing)?|looking (?:into|at|for)"
    r"|wants? me to|told me to|asked me to|(?:going|have|got) to try|to try|used to"
    r"|sort(?:ing)? out|apply(?:ing)? for|remind me|about to|yet to|not yet|haven't|hasn't"
    r"|in case"
    # the future or a question still to ask states no present fact: "I'll be on statins",
    # "I shall ask the pharmacist about paracetamol"
    r"|will|shall|won't|going to|gonna|(?:i|we|you|they)'ll|ask(?:ing)?(?:\s+\w+){0,3}\s+about)\b",
    re.I,
)


# A question asked after a conjunction or a greeting ("and what about yellow fever, is that
# needed there"): the rules' question form reads the clause's first word only.
_ASKED = compile_kept(
    r"^\W*(?:(?:and|so|but|also|oh|ok|okay|hmm+|um+|then|wait)\W+)+"
    r"(?:what|when|where|which|who|why|how|is|are|do|does|did|can|could|should)\b"
    r"|\b(?:is|are)\s+(?:that|it|this|they)\s+(?:needed|necessary|required|ok|okay|safe)\b",
    re.I,
)
# A sentence that corrects a record said before ("actually, make that the 19th", "the
# dentist moved to Friday", "wait, started yesterday actually"): the record it corrects is
# the rules' (a correction replaces it); a frame would add a second one.
_CORRECTS = compile_kept(
    r"^\W*(?:(?:oh|ah|ok|okay|sorry)\W+)?(?:actually|correction|oops|wait|scratch that)\b"
    r"|\bactually\W*$|\b(?:make (?:that|it)|i meant|is actually|now (?:it's|it is)"
    r"|(?:moved|pushed back|pushed|changed|rescheduled|postponed|brought forward)"
    r"(?:\s+\S+){0,3}?\s+to)\b",
    re.I,
)


def stated_not(sentence: str) -> bool:
    """Whether a sentence states no fact of its own: a question (the rules' forms, one asked
    after a conjunction, or any sentence ending in a question mark: "also need hep A jab?" —
    the rules read a statement's word order with one as surprise, the frames, less precise,
    do not), a hypothetical, an uncertainty or a negation."""
    return (
        guarded(sentence, sentence=sentence)
        or _ASKED.search(sentence) is not None
        or sentence.rstrip().endswith(("?", "？"))
    )


def corrects(sentence: str) -> bool:
    """Whether a sentence corrects a record said before it."""
    return _CORRECTS.search(sentence) is not None


_CLAUSE_BREAK = compile_kept(r"[,;:–—]|\b(?:and|but|because|since|so)\b", re.I)


def _intended(sentence: str, first: int) -> bool:
    """Whether the clause holding the first value says a plan or a need before it."""
    head = sentence[:first]
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(head)]
    return _INTENT.search(head[breaks[-1] if breaks else 0 :]) is not None


def _not_yet(frame: Frame, value: dict[str, Any], today: dt.date) -> bool:
    """Whether a date the frame reads as past (a jab had, a weight taken, a medication
    started) falls after the message's day: what has not happened yet is no fact of a frame
    that is a state ("the second rabies one in a week")."""
    for slot in frame.slots:
        said = value.get(slot.field)
        if slot.prefer == "past" and slot.type == "date" and isinstance(said, str):
            with contextlib.suppress(ValueError):
                if dt.date.fromisoformat(said[:10]) > today:
                    return True
    return False


def _about_someone_else(sentence: str, first: int) -> bool:
    return someone_else(sentence[:first]) or named_subject(sentence) is not None


def extract(
    text: str,
    observed_at: dt.datetime,
    catalog: Catalog,
    history: Sequence[tuple[str, dt.datetime]] = (),
    skip: Iterable[str] = (),
) -> list[Candidate]:
    """Candidates the frames find in one user message (paths in `skip` are left alone)."""
    return read(text, observed_at, catalog, history, skip).candidates


def read(
    text: str,
    observed_at: dt.datetime,
    catalog: Catalog,
    history: Sequence[tuple[str, dt.datetime]] = (),
    skip: Iterable[str] = (),
    rules: Sequence[Candidate] = (),
) -> Reading:
    """Candidates and hints of one user message, read on every window.

    `rules` are the rules' candidates of the same message: where a rule and a frame propose
    the same path for the same sentence, one answer is kept (`merge`); paths in `skip` are
    left alone entirely."""
    frames = list(active_frames())
    skipped = set(skip)
    empty = Reading([], [])
    if not text.strip():
        return empty
    today = observed_at.date()
    spans = windows(text, history, today)
    if not spans:
        return empty
    # a sentence stating no fact of its own yields nothing whatever its frames: not encoded
    states = [not stated_not(win.sentence) for win in spans]
    ballots = votes(spans, frames, today, states)
    out: list[Candidate] = []
    hints: dict[str, dict[str, Any]] = {}
    taken: set[tuple[str, str]] = set()  # (path, key value) of the records filled
    for win, ballot, stating in zip(spans, ballots, states, strict=True):
        if not stating:
            continue
        chosen = [v for v in ballot if v.chosen]
        found = _filled(chosen, win, text, today, catalog, skipped, taken)
        out += found
        taken |= {_record_key(c, catalog) for c in found}
        filled = {path for path, _ in taken}
        if not found and chosen and chosen[0].frame.path not in skipped | filled:
            first = chosen[0].frame
            hints.setdefault(first.path, _hint(first, win.sentence, catalog))
    out = merge(rules, out, spans, catalog)
    return Reading(out, [h for p, h in hints.items() if p not in {p for p, _ in taken}])


@dataclass(frozen=True, slots=True)
class Vote:
    """How one frame scores one window: on the view it is read on (the sentence, or the
    sentence after the one before it when only that says the frame's cue), against the best
    of "none" and "other" on the same view, and on the sentence alone."""

    frame: Frame
    score: float
    against: float
    cued: bool
    cued_alone: bool  # the sentence itself says the cue (not only the one before it)
    alone: float  # the sentence alone's score for this frame
    alone_against: float

    @property
    def chosen(self) -> bool:
        """Whether the frame is chosen for the window: its score reaches the threshold of a
        cued window (or the higher one of an uncued window) and beats none/other by its
        margin."""
        limit = self.frame.threshold if self.cued else self.frame.uncued
        return (
            limit is not None
            and self.score >= limit
            and self.score > self.against + self.frame.margin
        )


def votes(
    spans: Sequence[Window],
    frames: Sequence[Frame],
    today: dt.date,
    wanted: Sequence[bool] | None = None,
) -> list[list[Vote]]:
    """Every frame's vote on every window, best first. One view per window: the sentence when
    it says some frame's cue (its own topic, not the previous sentence's), else the sentence
    after the one before it when that says one (a value said after its topic: "New expiry is
    March 5, 2035." after "my renewed passport came"), else the sentence, uncued. A window
    read on its context view is scored on the sentence alone too, only when some frame is
    chosen there; each text is encoded once, in at most two batches per message. A window
    `wanted` marks False (a question, a negation: `read` uses nothing of it) has no votes
    and is not encoded."""
    open_ = [f for f in frames if f.uncued is not None]  # frames that read uncued windows
    plan: list[tuple[str, list[bool]] | None] = []
    for at, win in enumerate(spans):
        if wanted is not None and not wanted[at]:
            plan.append(None)
            continue
        cues = [cued(f, win.sentence, today) for f in frames]
        view = win.sentence
        if not any(cues) and win.previous:
            around = [cued(f, win.context, today) for f in frames]
            if any(around):
                view, cues = win.context, around
        chosen = any(cues) or any(_times_fillable(f, win, today) for f in open_)
        plan.append((view, cues) if chosen else None)
    views = list(dict.fromkeys(p[0] for p in plan if p is not None))
    if not views:  # the cheap pre-filter: no window can choose a frame
        return [[] for _ in spans]
    scored = _Scored(views)
    out: list[list[Vote]] = []
    for win, step in zip(spans, plan, strict=True):
        if step is None:
            out.append([])
            continue
        view, cues = step
        score, against = scored.row(view)
        out.append(
            sorted(
                (
                    Vote(f, score.get(f.name, -1.0), against, cue, view == win.sentence, -1.0, 0.0)
                    for f, cue in zip(frames, cues, strict=True)
                ),
                key=lambda v: -v.score,
            )
        )
    # the sentence alone, for windows read on their context view where a frame is chosen
    later = [w.sentence for w, b in zip(spans, out, strict=True) if _borrowing(w, b)]
    scored.add(later)
    for i, (win, ballot) in enumerate(zip(spans, out, strict=True)):
        if ballot and (ballot[0].cued_alone or win.sentence in scored.at):
            score, against = scored.row(win.sentence)
            out[i] = [
                replace(v, alone=score.get(v.frame.name, -1.0), alone_against=against)
                for v in ballot
            ]
    return out


_TIMES = ("date", "datetime")


def _times_fillable(frame: Frame, win: Window, today: dt.date) -> bool:
    """Whether each required date or time slot of the frame has a value in the window's
    sentence or the one before (where `fill` looks): a window that says no cue is chosen by
    a frame only if its record can be filled, so a sentence naming no day at all, before or
    after, is not encoded for it (the cheap pre-filter for uncued windows)."""
    return all(
        slot_values(slot, win.sentence, today)
        or (win.previous and slot_values(slot, win.previous, today))
        for slot in frame.slots
        if slot.required
        and slot.type in _TIMES
        and not (slot.if_said or slot.unless_said or slot.default)  # those may not need one
    )


def _borrowing(win: Window, ballot: list[Vote]) -> bool:
    return bool(ballot) and not ballot[0].cued_alone and any(v.chosen for v in ballot)


class _Scored:
    """Label scores of a message's texts, each text encoded once."""

    def __init__(self, texts: list[str]) -> None:
        import numpy as np

        self.at: dict[str, int] = {}
        self._scores: dict[str, np.ndarray] = {}
        self._against = np.zeros(0, dtype=np.float32)
        self.add(texts)

    def add(self, texts: list[str]) -> None:
        new = [t for t in dict.fromkeys(texts) if t not in self.at]
        if not new:
            return
        import numpy as np

        from uac.fact_log.extraction import encoder

        # each text on its own: a window's score does not depend on which others are read
        found = index().scores(encoder.encode_each(new))
        against = np.max([found[lab] for lab in (NONE, OTHER) if lab in found], axis=0)
        base = len(self.at)
        self.at.update({t: base + i for i, t in enumerate(new)})
        self._scores = {
            lab: np.concatenate([self._scores.get(lab, np.zeros(0, np.float32)), v])
            for lab, v in found.items()
        }
        self._against = np.concatenate([self._against, against])

    def row(self, text: str) -> tuple[dict[str, float], float]:
        i = self.at[text]
        return {lab: float(v[i]) for lab, v in self._scores.items()}, float(self._against[i])


# Frames whose scores sit this close to the best chosen one are read too (multi-label):
# "Flying to Rome on the 3rd for my cousin's wedding" is a trip and an event.
CLOSE = 0.05


def _filled(
    chosen: list[Vote],
    win: Window,
    text: str,
    today: dt.date,
    catalog: Catalog,
    closed: set[str],
    taken: set[tuple[str, str]],
) -> list[Candidate]:
    """The candidates of the chosen frames that fill: the best one, and those scoring within
    CLOSE of the best chosen score (one candidate per path and message; for a collection
    with a key, one per record: a list said over several lines is several records)."""
    out: list[Candidate] = []
    top = chosen[0].score if chosen else 0.0
    for vote in chosen:
        frame = vote.frame
        if out and vote.score < top - CLOSE:
            break
        keyed = key_slot(frame, catalog) is not None
        if any(c.path == frame.path for c in out) or (
            not keyed and any(path == frame.path for path, _ in taken)
        ):
            continue  # filled from an earlier sentence of this message (one fact per path)
        if not frame.emit or frame.path in closed:
            if out:
                continue
            return out  # the sentence is about this frame: the rules (or nothing) speak for it
        out += [
            c
            for c in _candidate(vote, win, text, today, catalog)
            if _record_key(c, catalog) not in taken
        ]
    return out


def _record_key(cand: Candidate, catalog: Catalog) -> tuple[str, str]:
    """(path, the value of its key slot) of a frame's candidate; the key is "" for a path
    holding one fact per message (an attribute, a frame without a key slot)."""
    frame = next((f for f in active_frames() if f.path == cand.path), None)
    key = key_slot(frame, catalog) if frame is not None else None
    if key is None or not isinstance(cand.value, dict):
        return cand.path, ""
    return cand.path, str(cand.value.get(key.field, "")).lower()


def _candidate(
    vote: Vote, win: Window, text: str, today: dt.date, catalog: Catalog
) -> list[Candidate]:
    """The frame's candidates from the window's sentence: one, or one per item of a list
    of the record's key ("allergic to penicillin and sulfa"), each passing the guards."""
    frame = vote.frame
    key = key_slot(frame, catalog)
    filled = fill_items(frame, win.sentence, today, key, named=win.named)
    if not filled and CONTEXT_FILL and win.previous:
        # a required value from the sentence before: only when the sentence alone is
        # still about this frame ("It's valid until June 1." after "my ESTA came"), not
        # about something else that borrows it ("I was diagnosed with diabetes last week.")
        filled = fill_items(frame, win.sentence, today, key, win.previous, win.named)
        if filled and not vote.alone > vote.alone_against:
            return []
    if not filled:
        return []
    if not vote.cued_alone and not vote.alone > vote.alone_against:
        return []  # cued only by the sentence before: the sentence must be about it too
    out = []
    for record in filled:
        found = _guarded_candidate(frame, win, text, today, catalog, record)
        if found is not None:
            out.append(found)
    return out


def _guarded_candidate(
    frame: Frame,
    win: Window,
    text: str,
    today: dt.date,
    catalog: Catalog,
    filled: Filled,
) -> Candidate | None:
    """The candidate of one filled record, unless a guard holds for it: someone else's, a
    correction, a plan or a need said before its values (before the list that holds it), a
    past date still to come."""
    value, used, head = filled
    if not used or (frame.holder == "user" and _about_someone_else(win.sentence, head)):
        return None
    if frame.path not in catalog.attributes and corrects(win.sentence):
        return None
    if not frame.plans and (_intended(win.sentence, head) or _not_yet(frame, value, today)):
        return None
    first = min(f.start for f in used)
    last = max(f.end for f in used)
    attribute = frame.path in catalog.attributes
    return Candidate(
        kind="attribute" if attribute else "record",
        path=frame.path,
        value=value["value"] if attribute else value,
        op="assert",
        quote=text[win.start + first : win.start + last],
        start=win.start + first,
        confidence=frame.confidence,
    )


def merge(
    rules: Sequence[Candidate],
    found: list[Candidate],
    spans: Sequence[Window],
    catalog: Catalog,
) -> list[Candidate]:
    """The frames' candidates that add to the rules': where a rule and a frame propose the
    same path for the same sentence, the rule's is the answer (rules measure the more precise
    on every path: bench/frames_cv.py); a single-valued path the rules filled anywhere in the
    message keeps the rules' value; a record of another sentence is added."""
    if not rules:
        return found

    def sentence_of(offset: int) -> int:
        return next((i for i, w in enumerate(spans) if w.start <= offset < w.end), -1)

    ruled = {(c.path, sentence_of(c.start)) for c in rules}
    ruled_paths = {c.path for c in rules}
    out = []
    for cand in found:
        if (cand.path, sentence_of(cand.start)) in ruled:
            continue
        if cand.path in catalog.attributes and cand.path in ruled_paths:
            continue
        out.append(cand)
    return out


def _hint(frame: Frame, sentence: str, catalog: Catalog) -> dict[str, Any]:
    """What a calling agent may record itself: the path, its fields, the sentence."""
    coll = catalog.collection(frame.path)
    fields = sorted(catalog.model_for(coll).model_fields) if coll is not None else ["value"]
    fields = [f for f in fields if f != "id"]
    how = "value" if coll is None else "record"
    return {
        "path": frame.path,
        "fields": fields,
        "quote": sentence,
        "hint": f"this message may state {frame.path}; if it does, call the record tool with "
        f"path {frame.path!r} and a {how} ({', '.join(fields)})",
    }
