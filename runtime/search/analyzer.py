"""The text analyzer of notes search: one place that turns text into index terms.

Documents and queries go through the same steps, so a query term can only ever match a term
the index holds:

1. Fold: lower case, accents stripped, typographic apostrophes made plain.
2. Contractions and possessives are removed before splitting ("Mum's" -> "mum", "I'm" ->
   "i"), so no single-letter junk term such as "s" or "m" is ever indexed.
3. Split into [a-z0-9]+ words; drop stopwords and one-letter words (digits stay: "3 kids").
4. Irregular forms map to their base word ("met" -> "meet", "bought" -> "buy", "children"
   -> "child"): a stemmer only strips suffixes, so "meet"/"met" would never meet.
5. Porter stem (Snowball's `porter` through PyStemmer, the C library DuckDB's full-text-search
   extension also wraps: the same stems without loading that extension; memoised), so
   "adopted"/"adopts" and "promotion"/"promoted" share a term.

A leading "Name:" (a chat transcript's speaker, up to three capitalised words) is analysed
as a separate field: its terms are indexed with weight SPEAKER_WEIGHT instead of 1, so a
question naming a speaker prefers that speaker's turns without letting the name, present in
every one of their turns, outweigh the words of the question.

Why a table and Porter rather than a lemmatiser package: the vocabulary of personal
notes is ordinary English; ~180 irregular forms cover what suffix stripping misses, ship as
code (deterministic, nothing to download) and cost nothing at query time.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable

import Stemmer as _snowball

# Function words carry no topic; dropping them keeps short notes from matching on "my"/"the".
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)

# Base word: irregular forms (past tense, participles, plurals) that suffix stripping misses.
_IRREGULAR_SOURCE = """
arise:arose,arisen awake:awoke,awoken be:was,were,been bear:bore,borne beat:beaten
become:became begin:began,begun bend:bent bet:bet bind:bound bite:bit,bitten bleed:bled
blow:blew,blown break:broke,broken breed:bred bring:brought build:built burn:burnt
buy:bought catch:caught choose:chose,chosen cling:clung come:came creep:crept deal:dealt
dig:dug do:did,done draw:drew,drawn dream:dreamt drink:drank,drunk drive:drove,driven
eat:ate,eaten fall:fell,fallen feed:fed feel:felt fight:fought find:found flee:fled
fly:flew,flown forbid:forbade,forbidden forget:forgot,forgotten forgive:forgave,forgiven
freeze:froze,frozen get:got,gotten give:gave,given go:went,gone grind:ground grow:grew,grown
hang:hung have:had,has hear:heard hide:hid,hidden hold:held keep:kept kneel:knelt
know:knew,known lay:laid lead:led lean:leant leap:leapt learn:learnt leave:left lend:lent
lie:lay,lain light:lit lose:lost make:made mean:meant meet:met mistake:mistook,mistaken
overcome:overcame pay:paid prove:proven ride:rode,ridden ring:rang,rung rise:rose,risen
run:ran say:said see:saw,seen seek:sought sell:sold send:sent shake:shook,shaken shine:shone
shoot:shot shrink:shrank,shrunk sing:sang,sung sink:sank,sunk sit:sat sleep:slept
slide:slid speak:spoke,spoken speed:sped spend:spent spin:spun spit:spat split:split
spread:spread spring:sprang,sprung stand:stood steal:stole,stolen stick:stuck sting:stung
stink:stank,stunk strike:struck swear:swore,sworn sweep:swept swim:swam,swum swing:swung
take:took,taken teach:taught tear:tore,torn tell:told think:thought throw:threw,thrown
understand:understood wake:woke,woken wear:wore,worn weep:wept win:won wind:wound
withdraw:withdrew write:wrote,written
child:children man:men woman:women person:people foot:feet tooth:teeth mouse:mice
goose:geese wife:wives knife:knives life:lives leaf:leaves wolf:wolves half:halves
shelf:shelves loaf:loaves thief:thieves
good:better,best bad:worse,worst
"""
IRREGULAR: dict[str, str] = {
    form: base
    for entry in _IRREGULAR_SOURCE.split()
    for base, forms in [entry.split(":")]
    for form in forms.split(",")
    if form != base
}
# Forms that are also common words of their own keep their own meaning.
for _ambiguous in ("found", "ground", "left", "lay", "lit", "wound", "bound", "lives", "saw"):
    IRREGULAR.pop(_ambiguous, None)

SPEAKER_WEIGHT = 2.0

_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_CONTRACTION = re.compile(r"\b(can)'t\b|n't\b|'(?:s|m|re|ve|ll|d)\b|(?<=s)'(?=\s|$)")
_SPEAKER = re.compile(r"^\s*((?:[A-Z][\w.'\u2019-]*)(?: [A-Z][\w.'\u2019-]*){0,2}):\s")

Stemmer = Callable[[list[str]], list[str]]

_PORTER = _snowball.Stemmer("porter")
_PORTER_LOCK = threading.Lock()  # a PyStemmer stemmer is not safe to share between threads


def porter(words: list[str]) -> list[str]:
    """The Porter stem of each word (Snowball's `porter`, as DuckDB's `stem(w, 'porter')`)."""
    with _PORTER_LOCK:
        return list(_PORTER.stemWords(words))


def fold(text: str) -> str:
    """Lower case, accents stripped, contractions and possessives removed."""
    folded = text.translate(_APOSTROPHES).lower()
    if not folded.isascii():  # most text is ASCII: no accents to strip, skip the char loop
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _CONTRACTION.sub(lambda m: m.group(1) or "", folded)


def words(text: str) -> list[str]:
    """The content words of a text in order: folded, no stopwords, no one-letter words."""
    return [
        w for w in _WORD.findall(fold(text)) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())
    ]


def split_speaker(text: str) -> tuple[str | None, str]:
    """("Sam", "see you!") for "Sam: see you!"; (None, text) when there is no speaker."""
    m = _SPEAKER.match(text)
    if m is None:
        return None, text
    return m.group(1), text[m.end() :]


class Analyzer:
    """Text to weighted terms, with a memoised stemmer (Porter by default)."""

    def __init__(self, stem: Stemmer = porter) -> None:
        self._stem = stem
        self._cache: dict[str, str] = {}

    def stems(self, tokens: Iterable[str]) -> dict[str, str]:
        """The term of each distinct word (irregular forms mapped first), memoised."""
        # Concurrent searches share the memo: work on one reference to it, and replace it
        # (never clear it in place) when it grows too big.
        cache = self._cache
        wanted = {IRREGULAR.get(w, w) for w in tokens}
        missing = sorted(w for w in wanted if w not in cache)
        if missing:
            if len(cache) > 200_000:
                cache = {}
            cache.update(zip(missing, self._stem(missing), strict=True))
            self._cache = cache
        return {w: cache[IRREGULAR.get(w, w)] for w in tokens}

    def query_terms(self, text: str) -> list[str]:
        """The distinct terms of a query, sorted (a query has no speaker field)."""
        toks = words(text)
        stems = self.stems(toks)
        return sorted({stems[w] for w in toks})

    def documents(self, texts: list[str]) -> list[tuple[dict[str, float], float]]:
        """Per text: term -> weighted frequency, and the weighted length (for BM25)."""
        parts = []
        vocabulary: set[str] = set()
        for text in texts:
            speaker, body = split_speaker(text)
            sw, bw = words(speaker) if speaker else [], words(body)
            vocabulary.update(sw)
            vocabulary.update(bw)
            parts.append((sw, bw))
        stems = self.stems(vocabulary)
        out = []
        for sw, bw in parts:
            tf: dict[str, float] = {}
            for w in bw:
                tf[stems[w]] = tf.get(stems[w], 0.0) + 1.0
            for w in sw:
                tf[stems[w]] = tf.get(stems[w], 0.0) + SPEAKER_WEIGHT
            out.append((tf, len(bw) + SPEAKER_WEIGHT * len(sw)))
        return out
