"""The judge: a learned check of the automatic extractors' candidates, after the guard.

Hand-written guards (abstain.py, the rules' own) do not carry over to new writers, so this
stage weighs what is cheap to know about a candidate, having learned from the tuning sets
which candidates became right facts and which false ones (bench/judge_train.py; measured
leave-one-set-out by bench/judge_cv.py):

    path        which catalog path it fills (one column per path)
    source      a rule's or a frame's candidate, and its confidence
    topic       how close its sentence sits, on the shipped encoder, to the labelled examples
                of the path's frames and to those of messages that teach nothing (the
                frames' own index: frames.py); the encoder's raw vectors as columns measured
                worse leave-one-set-out and are not used
    cues        a question, hypothetical or negation, someone else named before the value,
                a plan or a need before it, a correction (patterns/text.py, frames.py)
    values      how many of its text values the sentence says, how many fields it fills of
                those the record has, how far its dates are from the message's day, dates
                and amounts the sentence says beside them, a title that is only the
                sentence's opening words

A logistic regression over these (weights shipped as data: fact_log/judge_weights.npz) gives
the probability the candidate is right. One under the shipped threshold is not learned: it is
returned from `add` as a hint (the path, what was read, the sentence, the probability), so a
calling agent can still record it with the typed tool. Only the automatic extractors'
candidates are judged: never an explicit command's, a structured import's or the LLM's.
Nothing runs without the encoder's weights. The stage is opt-in (`UAC_JUDGE=1`,
`ON_BY_DEFAULT`): leave-one-set-out it raised precision on new writers by about 0.02 for
0.007 of recall, short of what was asked to switch it on (bench/RESULTS.md).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import compile_kept
from uac.fact_log.extraction.patterns.text import (
    guarded,
    is_question,
    named_subject,
    sentences,
    someone_else,
)
from uac.fact_log.extraction.slots import parser

if TYPE_CHECKING:  # NumPy loads at the first use of a model
    import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "judge_weights.npz"
_MAX_JUDGED = 64  # candidates judged in one message: a hostile one is bounded (the rest pass)
_MAX_SENTENCE = 600  # characters of a sentence given to the encoder (as frames.py does)
_ISO = compile_kept(r"^\d{4}-\d{2}-\d{2}")
_DIGITS = compile_kept(r"\d+")
# The scalar features, in the order of the weights file's columns (after the path columns)
SCALARS = (
    "frame",  # a frame's candidate (else a rule's)
    "confidence",
    "topic_path",  # best score of the path's frames on the sentence (0 when no frame fills it)
    "topic_none",  # best of "none" and "other" on the sentence
    "topic_best",  # best frame score on the sentence
    "path_is_best",  # the best frame fills the candidate's path
    "topic_margin",  # topic_path - topic_none
    "stated_not",  # question, hypothetical, uncertainty or negation in the sentence
    "question",
    "someone_else",  # another person named before the value
    "named_subject",  # a named person is the sentence's subject
    "intended",  # a plan or a need said before the value
    "corrects",  # the sentence corrects something said before
    "said",  # share of the candidate's text values the sentence says
    "filled",  # fields the candidate fills / fields the record has
    "required_missing",  # required fields left empty
    "n_fields",
    "date_days",  # log(1 + days between the nearest date value and the message's day)
    "date_past",  # the candidate holds a date before the message's day
    "date_future",
    "sentence_len",  # log(1 + characters)
    "quote_share",  # quote length / sentence length
    "message_sentences",  # log(1 + sentences of the message)
    "first_sentence",  # the candidate is in the message's first sentence
    "same_path",  # other candidates of the message on the same path
    "ending",  # op is "end"
    "correction",  # the candidate replaces an earlier record
    "dates_left",  # dates the sentence says that the candidate does not hold
    "amounts_left",  # amounts the sentence says that the candidate does not hold
    "numbers",  # log(1 + runs of digits in the sentence)
    "text_opens",  # a text value is the sentence's opening words ("Whey aye", "Before it I")
    "text_words",  # log(1 + words of the longest text value)
)


@dataclass(frozen=True, slots=True)
class Weights:
    """A trained judge: the columns it reads and their weights."""

    paths: tuple[str, ...]
    mean: np.ndarray  # of every column (each standardised before the product)
    scale: np.ndarray
    coef: np.ndarray  # path columns, then scalars
    bias: float
    threshold: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(right) of each row of raw features."""
        import numpy as np

        z = standardised(x, self.mean, self.scale) @ self.coef + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def save(self, path: Path) -> None:
        """Write the weights file (the same bytes for the same weights)."""
        import numpy as np

        with open(path, "wb") as fh:
            np.savez(
                fh,
                paths=np.array(self.paths, dtype=str),
                scalars=np.array(SCALARS, dtype=str),
                mean=self.mean.astype(np.float64),
                scale=self.scale.astype(np.float64),
                coef=self.coef.astype(np.float64),
                bias=np.array(self.bias, dtype=np.float64),
                threshold=np.array(self.threshold, dtype=np.float64),
            )


def standardised(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The rows with every column centred and scaled as in training."""
    import numpy as np

    return (x.astype(np.float64) - mean) / scale


def load(path: Path = WEIGHTS_FILE) -> Weights | None:
    """The weights of a file, or None when it is absent or written for other features."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            if tuple(str(s) for s in data["scalars"]) != SCALARS:
                return None
            return Weights(
                paths=tuple(str(p) for p in data["paths"]),
                mean=data["mean"],
                scale=data["scale"],
                coef=data["coef"],
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
            )
    except (OSError, KeyError, ValueError):
        return None


def shipped() -> Weights | None:
    """The weights in use: the shipped file (fact_log/judge_weights.npz), or the file
    UAC_JUDGE_WEIGHTS names (one trained elsewhere, or a test's); each file read once."""
    return _cached(os.environ.get("UAC_JUDGE_WEIGHTS") or str(WEIGHTS_FILE))


@functools.cache
def _cached(path: str) -> Weights | None:
    return load(Path(path))


def train(
    x: np.ndarray, y: np.ndarray, paths: Sequence[str], threshold: float, l2: float
) -> Weights:
    """A logistic regression of y (1 right, 0 false) on the raw feature rows x: every column
    standardised, an L2 penalty on every weight but the bias, Newton steps in float64. No
    randomness and a fixed order: the same rows give the same weights."""
    import numpy as np

    x = x.astype(np.float64)
    y = y.astype(np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], float(l2))
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30.0, 30.0)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1.0 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return Weights(tuple(paths), mean, scale, w[:-1], float(w[-1]), float(threshold))


# Whether the judge runs when UAC_JUDGE is not set. Off: measured leave-one-set-out it did not
# raise precision on new writers enough for the recall it costs (bench/RESULTS.md, "The
# learned judge"); UAC_JUDGE=1 turns it on, UAC_JUDGE=0 off.
ON_BY_DEFAULT = False


def available() -> bool:
    """Whether the judge runs here: switched on, the encoder and the weights present."""
    from uac.fact_log.extraction import encoder_files

    switch = os.environ.get("UAC_JUDGE", "1" if ON_BY_DEFAULT else "0")
    return switch != "0" and encoder_files.available() and shipped() is not None


@dataclass(frozen=True, slots=True)
class Doubted:
    """A candidate the judge did not let through, with its probability of being right."""

    candidate: Candidate
    sentence: str
    probability: float

    def hint(self) -> dict[str, Any]:
        """What a calling agent may record with the typed tool, and why it was not."""
        from uac.fact_log.extraction.abstain import _shown

        path = self.candidate.path
        value = self.candidate.value
        read = value if isinstance(value, dict) else {"value": value}
        return {
            "path": path,
            "fields": sorted(read),
            "quote": self.sentence,
            "read": {k: _shown(v) for k, v in sorted(read.items())},
            "probability": round(self.probability, 3),
            "hint": f"this message may state {path} (read {_shown(read)}), but a sentence "
            f"like it is often something else: a question, a plan, someone else's; if it "
            f"states it, call the record tool with path {path!r} and the whole record",
        }


def judge(
    catalog: Catalog,
    text: str,
    candidates: Sequence[Candidate],
    framed: Sequence[Candidate],
    observed_at: dt.datetime,
    weights: Weights | None = None,
) -> tuple[list[Candidate], list[Doubted]]:
    """The candidates kept, and those whose judged probability of being right is under the
    threshold (`Doubted`, each with its hint). `framed` are the frames' candidates among
    them; candidates past the first _MAX_JUDGED pass unjudged."""
    weights = weights or shipped()
    if weights is None or not candidates:
        return list(candidates), []
    judged = list(candidates[:_MAX_JUDGED])
    x, said = features(catalog, text, judged, framed, observed_at, weights.paths)
    probs = weights.probability(x)
    kept: list[Candidate] = []
    doubted: list[Doubted] = []
    for cand, sentence, p in zip(judged, said, probs, strict=True):
        if p < weights.threshold:
            doubted.append(Doubted(cand, sentence, float(p)))
        else:
            kept.append(cand)
    return [*kept, *candidates[_MAX_JUDGED:]], doubted


def features(
    catalog: Catalog,
    text: str,
    candidates: Sequence[Candidate],
    framed: Sequence[Candidate],
    observed_at: dt.datetime,
    paths: Sequence[str],
) -> tuple[np.ndarray, list[str]]:
    """One row of raw features per candidate (path columns, then SCALARS), and the sentence
    each was read from."""
    import numpy as np

    from uac.fact_log.extraction import encoder, frames

    spans = [s for s in sentences(text) if s.text.strip()]
    sentence_of: list[tuple[str, int]] = []  # (sentence, its index in the message)
    for cand in candidates:
        at = next((i for i, s in enumerate(spans) if s.start <= cand.start < s.end), -1)
        sent = spans[at].text[:_MAX_SENTENCE] if at >= 0 else cand.quote[:_MAX_SENTENCE]
        sentence_of.append((sent, at))
    texts = list(dict.fromkeys(s for s, _ in sentence_of))
    vectors = encoder.encode(texts)
    row_of = {t: i for i, t in enumerate(texts)}
    topics = frames.index().scores(vectors)
    by_path: dict[str, list[str]] = {}
    for frame in frames.active_frames():
        by_path.setdefault(frame.path, []).append(frame.name)
    frame_names = [f.name for f in frames.active_frames() if f.name in topics]
    framed_at = {(c.path, c.start) for c in framed}
    column = {p: i for i, p in enumerate(paths)}
    today = observed_at.date()
    rows = []
    for cand, (sent, at) in zip(candidates, sentence_of, strict=True):
        i = row_of[sent]
        path_cols = np.zeros(len(paths))
        if cand.path in column:
            path_cols[column[cand.path]] = 1.0
        none = max((float(topics[lab][i]) for lab in ("none", "other") if lab in topics), default=0)
        own = [float(topics[n][i]) for n in by_path.get(cand.path, ()) if n in topics]
        best_name = max(frame_names, key=lambda n: float(topics[n][i]), default=None)
        best = float(topics[best_name][i]) if best_name is not None else 0.0
        topic = max(own, default=0.0)
        first = _first_value(cand, sent)
        scalars = _scalars(catalog, cand, sent, first, today)
        scalars.update(
            frame=float((cand.path, cand.start) in framed_at),
            confidence=float(cand.confidence),
            topic_path=topic,
            topic_none=none,
            topic_best=best,
            path_is_best=float(best_name is not None and best_name in by_path.get(cand.path, ())),
            topic_margin=topic - none if own else 0.0,
            message_sentences=math.log1p(len(spans)),
            first_sentence=float(at <= 0),
            same_path=float(sum(c.path == cand.path for c in candidates) - 1),
        )
        rows.append(np.concatenate([path_cols, [scalars[name] for name in SCALARS]]))
    return np.vstack(rows), [s for s, _a in sentence_of]


def _scalars(
    catalog: Catalog, cand: Candidate, sentence: str, first: int, today: dt.date
) -> dict[str, float]:
    """The cues and value signals of one candidate in its sentence."""
    from uac.fact_log.extraction.frames import _intended, corrects

    head = sentence[:first]
    value = cand.value if isinstance(cand.value, dict) else {"value": cand.value}
    coll = catalog.collection(cand.path)
    fields, required = (1, 1)
    if coll is not None:
        model = catalog.model_for(coll).model_fields
        names = [n for n in model if n != "id"]
        fields = len(names)
        required = sum(1 for n in names if model[n].is_required())
        missing = sum(1 for n in names if model[n].is_required() and value.get(n) is None)
    else:
        missing = 0
    texts = [
        str(v).casefold()
        for v in value.values()
        if isinstance(v, str) and not _ISO.match(v) and len(v) >= 2
    ]
    low = sentence.casefold()
    said = sum(t in low for t in texts) / len(texts) if texts else 1.0
    days = []
    for v in value.values():
        day = _day(v)
        if day is not None:
            days.append((day - today).days)
    near = min(days, key=abs) if days else 0
    held = {str(v)[:10] for v in value.values() if v is not None}
    held |= {_number(v) for v in value.values() if v is not None}
    dates = {str(h.value)[:10] for h in parser("date")(sentence, today, "future")}
    amounts = {_number(h.value) for h in parser("amount")(sentence, today, "future")}
    return {
        "stated_not": float(
            guarded(sentence, sentence=sentence) or sentence.rstrip().endswith("?")
        ),
        "question": float(is_question(sentence, sentence)),
        "someone_else": float(someone_else(head)),
        "named_subject": float(named_subject(sentence) is not None),
        "intended": float(_intended(sentence, first)),
        "corrects": float(corrects(sentence)),
        "said": said,
        "filled": sum(v is not None for v in value.values()) / max(fields, 1),
        "required_missing": float(missing),
        "n_fields": float(required),
        "date_days": math.log1p(abs(near)),
        "date_past": float(any(d < 0 for d in days)),
        "date_future": float(any(d > 0 for d in days)),
        "sentence_len": math.log1p(len(sentence)),
        "quote_share": min(len(cand.quote) / max(len(sentence), 1), 1.0),
        "ending": float(cand.op == "end"),
        "correction": float(cand.replaces is not None),
        "dates_left": float(len(dates - held)),
        "amounts_left": float(len(amounts - held)),
        "numbers": math.log1p(len(_DIGITS.findall(sentence))),
        "text_opens": float(any(_opens(t, low) for t in texts)),
        "text_words": math.log1p(max((len(t.split()) for t in texts), default=0)),
    }


def _opens(value: str, sentence: str) -> bool:
    """Whether a text value is read from the sentence's first words (a title or goal that
    is only the sentence's opening, not a named thing)."""
    start = sentence.lstrip(" \t-*•'\"").find(value)
    return start == 0 and len(value) >= 3


def _number(value: Any) -> str:
    """A value's number as text (an amount's own number), else the value as text."""
    if isinstance(value, dict):
        value = value.get("amount", value.get("value", ""))
    try:
        return str(Decimal(str(value)).normalize())
    except InvalidOperation:
        return str(value)


def _first_value(cand: Candidate, sentence: str) -> int:
    """Where the sentence first says the candidate's quote (its start when not found)."""
    at = sentence.find(cand.quote[:40]) if cand.quote else -1
    return at if at >= 0 else 0


def _day(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _ISO.match(value):
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None
