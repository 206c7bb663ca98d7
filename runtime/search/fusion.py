"""Rank fusion: the lexical and dense lists into one relevance, then recency and feedback.

The lexical list (BM25 / the list's best BM25) and the dense list (cosine min-max over the
list) are added with weights. Reciprocal rank fusion, used before, gave a weak list equal
say and halved the score of an item missing from one list: with the hashing embedder (which
puts short turns of the same speaker on top, a name dominating a short vector) it lost
evidence turns that BM25 alone ranked in the top 10. An embedder declares whether it is
semantic; a non-semantic list is consulted only when BM25 is unsure and may reorder the
lexical top k but never displace one of them.

Recency (factor 0.5 + 0.5 * 0.5 ** (age_days / half_life_days)) only breaks near-ties: it
adds at most RECENCY_WEIGHT of the best relevance, because as a multiplier its 0.66..1
spread within one conversation outweighed the ~1.15x between fused ranks 1 and 10.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

RRF_K = 60  # only for the informational `rrf` of a hit; ranking uses weighted score fusion
# Fusion weights: the lexical list is the reference (1.0). A semantic embedder's list weighs
# what was measured for it (VECTOR_WEIGHTS; an unmeasured one gets equal say); a
# non-semantic one (feature hashing) is consulted only when the lexical list
# cannot be trusted alone (a query word unknown to the subject, or fewer than k matches) and
# then weighs VECTOR_WEIGHT_NON_SEMANTIC (tuned on the dev half of bench/data/conv_*).
VECTOR_WEIGHT_SEMANTIC = 1.0
# Measured per list on the dev half of bench/data/conv_* (recall@10 and MRR both above the
# lexical list alone): all-MiniLM-L6-v2's list at 0.1 (0.05: less recall; 0.15: MRR below
# the lexical list's; 0.3 and up: MRR well below it). The same model by either runtime.
VECTOR_WEIGHTS = {"minilm-l6-v2-numpy": 0.1, "sentence-transformers/all-MiniLM-L6-v2": 0.1}
VECTOR_WEIGHT_NON_SEMANTIC = 0.1
VECTOR_WEIGHT_UNKNOWN_WORD = 0.1
# Recency breaks ties: its whole range (factor 0.5..1) moves a score by at most
# RECENCY_WEIGHT/2 of the best relevance, so it reorders near-equal items only. A query
# asking for what is new ("recently", "latest") orders the chosen k by RECENCY_WEIGHT_CUED
# (a query-dependent prior), without changing which k are chosen (see `best`).
RECENCY_WEIGHT = 0.02
RECENCY_WEIGHT_CUED = 0.3
RECENCY_FLOOR = 0.5
# Inside a time window ("what did she do in March?") the question asks what happened, and
# the few remaining words (often just a name) favour the shortest turns; this prior for
# longer, wordier items counters BM25's short-document bias there.
WINDOW_SUBSTANCE_WEIGHT = 1.0
# hops=2: the second pass (query + names found in the first hits) adds items below the best
# first-pass item; its best scores HOP_DISCOUNT of the first pass's best.
HOP_DISCOUNT = 0.9
FEEDBACK_FACTOR = 0.5
_EPOCH = dt.datetime(1970, 1, 1)

Parts = dict[int, dict[str, Any]]


def recency_factor(age_days: float, half_life_days: float) -> float:
    """How much an item's age lowers its score: from 1.0 (new) down to RECENCY_FLOOR."""
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * math.pow(0.5, age_days / half_life_days)


def vector_weight(semantic: bool, unknown: bool, embedder: str = "") -> float:
    """The dense list's weight against the lexical list's 1.0 (measured per embedder)."""
    if semantic:
        return VECTOR_WEIGHTS.get(embedder, VECTOR_WEIGHT_SEMANTIC)
    return VECTOR_WEIGHT_UNKNOWN_WORD if unknown else VECTOR_WEIGHT_NON_SEMANTIC


def fuse(
    lex: list[tuple[Any, ...]],
    vec: list[tuple[Any, ...]],
    *,
    depth: int,
    k: int,
    avgdl: float,
    windows: bool,
    semantic: bool,
    unknown: bool,
    embedder: str = "",
) -> Parts:
    """Candidates with their score parts: weighted, normalised score fusion."""
    w_vec = vector_weight(semantic, unknown, embedder)
    parts: Parts = {}
    if lex:
        top = lex[0][1]
        # An item missing from a truncated list scores at most what its last item does.
        fill = lex[-1][1] / top if len(lex) == depth else 0.0
        for rank, (doc, score, at, length) in enumerate(lex, 1):
            parts[doc] = {
                "at": at,
                "bm25": (rank, float(score)),
                "lexical": float(score) / top,
                # Saturating: 0.5 at the subject's average length, towards 1 for long items.
                "substance": float(length) / (float(length) + avgdl),
            }
    else:
        fill = 0.0
    if vec:
        hi = float(vec[0][1])
        lo = float(vec[-1][1]) if len(vec) == depth else 0.0
        for rank, (doc, score, at) in enumerate(vec, 1):
            p = parts.setdefault(doc, {"at": at, "lexical": fill if lex else None})
            p["vec"] = (rank, float(score))
            p["vector"] = (float(score) - lo) / (hi - lo) if hi > lo else 1.0
    for p in parts.values():
        relevance = p["lexical"] or 0.0
        if "vector" in p:
            relevance += w_vec * p["vector"]
        if windows:
            relevance += WINDOW_SUBSTANCE_WEIGHT * p.get("substance", 0.0)
        p["relevance"] = relevance
    if lex and vec and not semantic and not unknown:
        # A non-semantic list reorders the lexical top k but never displaces one of them:
        # every other item ranks below the weakest of those, lexical matches first.
        head = {doc for doc, *_ in lex[:k]}
        floor = min(parts[d]["relevance"] for d in head)
        for doc, p in parts.items():
            if doc in head:
                continue
            if "bm25" in p:
                p["relevance"] = floor * (0.5 + 0.49 * p["lexical"])
            else:
                p["relevance"] = floor * 0.49 * p["vector"]
    return parts


def merge_second_pass(first: Parts, second: Parts) -> Parts:
    """First-pass items plus second-pass ones scaled below the first pass's best."""
    if not second:
        return first
    # The second pass answers a derived question: it may add items, never outrank the first.
    scale = (
        HOP_DISCOUNT
        * max(p["relevance"] for p in first.values())
        / max(p["relevance"] for p in second.values())
    )
    merged = dict(first)
    for doc, p in second.items():
        relevance = p["relevance"] * scale
        if doc not in merged or merged[doc]["relevance"] < relevance:
            merged[doc] = {**p, "relevance": relevance}
    return merged


def best(
    parts: Parts,
    k: int,
    *,
    disliked: frozenset[int],
    half_life_days: float,
    today: dt.date,
    recent: bool,
) -> list[int]:
    """The k best docs by relevance + recency tie-break, feedback applied (parts updated).

    A query asking for what is new ("recently") orders those k by a stronger recency prior,
    but never swaps one of them for a newer, less relevant item: which k items are shown is
    decided by relevance (recency only breaking near-ties), so the prior costs no recall.
    """
    now = dt.datetime(today.year, today.month, today.day)
    top_relevance = max(p["relevance"] for p in parts.values()) or 1.0
    weight = RECENCY_WEIGHT_CUED if recent else RECENCY_WEIGHT
    chosen, ordered = [], {}
    for doc, p in parts.items():
        age_days = max(0.0, (now - p["at"]).total_seconds() / 86400.0)
        recency = recency_factor(age_days, half_life_days)
        factor = FEEDBACK_FACTOR if doc in disliked else 1.0
        base = (p["relevance"] + RECENCY_WEIGHT * top_relevance * recency) * factor
        score = (p["relevance"] + weight * top_relevance * recency) * factor
        p.update(recency=recency, factor=factor, score=score)
        # Doc numbers follow log order, so equal scores rank the same on every run.
        newer = -(p["at"] - _EPOCH).total_seconds()
        chosen.append((-base, newer, doc))
        ordered[doc] = (-score, newer, doc)
    members = [doc for *_, doc in sorted(chosen)[:k]]
    return sorted(members, key=ordered.__getitem__)
