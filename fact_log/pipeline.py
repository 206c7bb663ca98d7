"""The write pipeline: one input in, one appendable `Batch` out, every stage called once.

This module only orchestrates; each stage is a function of its input in its own module and
never calls back up the pipeline:

    check input      extraction.policy   (size, text, NUL, known source)   -> InputError
    safety scan      extraction.safety   secrets/identifiers masked, instructions found
    extract          extraction.llm      LLM candidates, when an LLM is configured
                     extraction.patterns pattern candidates (add what the LLM missed)
                     extraction.frames   frame candidates on the shipped encoder, for paths
                                         the patterns did not fill
                     extraction.markdown note candidates (a Markdown note instead)
    guard            extraction.abstain  after every extractor: someone else's fact, a day
                                         read as an amount and a value asked about refused;
                                         a record missing a value its sentence (or the one
                                         after it) says completed when one value fits,
                                         returned as a hint when several compete; a drug's
                                         named condition recorded; a one-verb task goal
                                         given the object said before it
    judge            extraction.judge    the rules' and frames' candidates weighed by a learned
                                         model; one judged unlikely is a hint (opt-in:
                                         UAC_JUDGE=1; bench/RESULTS.md says why)
    verify evidence  extraction.evidence the tier each quote reaches in the message
    eligibility      extraction.gate     threshold per source, boundary (catalog path or
                                         note), safety reasons; every refusal with its reason
    build the batch  extraction.batch    masked archive, facts, refusals in a fixed order

Structured imports (`build_import_batch`) skip the stages that do not apply (records are
typed data, not prose: no extraction, no evidence), are validated by `fact_log.importer` and
then screened by `extraction.screen` (secrets in string values masked, the archive masked).

Appending and reacting are the caller's: `Memory` appends the batch (one transaction) and then
reacts (recompile, checks, alerts). Keeping them out makes the pipeline a pure function of its
input, apart from the LLM's token ledger, so the same input always yields the same batch.
"""

from __future__ import annotations

import datetime as dt
import logging
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import batch as build
from uac.fact_log.extraction.abstain import (
    Undecided,
    abstain,
    refuse,
    with_currency,
    with_fronted_object,
    with_treated_condition,
    without_subsumed,
)
from uac.fact_log.extraction.candidate import Candidate, Reading
from uac.fact_log.extraction.evidence import tiers
from uac.fact_log.extraction.gate import finding_rejections, gate, unsafe
from uac.fact_log.extraction.llm import LLM, LLMCandidate, LLMSettings, as_llm, extract_with_llm
from uac.fact_log.extraction.llm import SOURCE as LLM_SOURCE
from uac.fact_log.extraction.llm_usage import UsageLedger
from uac.fact_log.extraction.markdown import SOURCE as NOTE_SOURCE
from uac.fact_log.extraction.markdown import (
    check_note_id,
    note_candidates,
    note_observed_at,
    parse_note,
    stray_secrets,
)
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.policy import Policy, check_message, check_source, default_policy
from uac.fact_log.extraction.safety import scan, sensitive_fields
from uac.fact_log.extraction.screen import mask_text, screen_records
from uac.fact_log.extraction.timemodel import date_notes
from uac.fact_log.importer import Chunk, Prepared, RawRecord, prepare, record_key
from uac.fact_log.progress_callback import Report, counted, step
from uac.fact_log.store import Batch, NewFact, NewRejection, Store
from uac.fact_log.values import canonical_json

_log = logging.getLogger(__name__)


def build_message_batch(
    catalog: Catalog,
    address: Address,
    text: str,
    *,
    observed_at: dt.datetime,
    recorded_at: dt.datetime,
    role: str = "user",
    session_id: str | None = None,
    source: str = "automatic_rule",
    actor: str = "api",
    policy: Policy | None = None,
    candidates: Iterable[Candidate] | None = None,
    llm: LLM | LLMSettings | None = None,
    store: Store | None = None,
    history: Sequence[tuple[str, dt.datetime]] = (),
) -> Batch:
    """Archive one message (masked) with the facts and refusals learned from it.

    `candidates` adds candidates from another extractor; the patterns always run. With
    source="explicit_command" every pattern candidate counts as certain, and a message with
    no typed fact (and nothing unsafe) is kept whole as a note. `llm` switches the LLM
    extractor on; `store` holds its token ledger (None only in tests: no budget).
    `history` is the session's earlier user messages (`session_history` reads them), which
    the patterns read for follow-ups and corrections and the LLM is shown as context.
    """
    policy = policy or default_policy()
    text = check_message(text, policy)
    check_source(source, policy)
    safety = scan(text)
    learns = role in policy.fact_roles
    model = as_llm(llm)

    # Extract: the LLM first (when configured), then the patterns add what it missed.
    llm_found: list[LLMCandidate] = []
    llm_problems: list[NewRejection] = []
    if model is not None and learns:
        ledger = UsageLedger(store, address) if store is not None else None
        day = (recorded_at.astimezone(dt.UTC) if recorded_at.tzinfo else recorded_at).date()
        llm_found, llm_problems = extract_with_llm(
            model,
            catalog,
            text,
            observed_at,
            role,
            ledger=ledger,
            day=day,
            policy=policy,
            safety=safety,
            history=history,
        )
    pattern_found: list[Candidate] = []
    reading = Reading([], [])
    failed: list[NewRejection] = []
    if learns:
        found: list[Candidate] = []
        with _kept_on_fault("rules", failed):
            found = extract(text, observed_at, role, catalog, history)
        with _kept_on_fault("frames", failed):
            reading = framed(text, observed_at, catalog, history, found)
        found += reading.candidates
        # One guard after every extractor: someone else's fact or a day read as an amount
        # is refused; a record whose sentence leaves a value's role undecided is a hint.
        withheld: list[Undecided] = []
        with _kept_on_fault("guard", failed):
            for reason, cand in refuse(text, found, observed_at.date()):
                found.remove(cand)
                quote = safety.masked_quote(cand.start, cand.quote)[:200]
                detail = {"quote": quote, "offset": cand.start}
                failed.append(NewRejection(reason, cand.path, detail))
            found, withheld = abstain(catalog, text, found, observed_at.date())
            found = without_subsumed(catalog, with_currency(catalog, text, found, history))
            found = with_fronted_object(text, with_treated_condition(text, found))
        doubted: list[dict[str, Any]] = []
        if source == "automatic_rule":  # an explicit command's candidates are never judged
            with _kept_on_fault("judge", failed):
                found, doubted = judged(catalog, text, found, reading.candidates, observed_at)
        hints = [*reading.hints, *(u.hint() for u in withheld), *doubted]
        reading = Reading(reading.candidates, hints)
        pattern_found = [*found, *(candidates or ())]
    explicit = source == "explicit_command"
    if explicit:
        pattern_found = [replace(c, confidence=1.0) for c in pattern_found]

    # Verify evidence, then the gate: once per extractor, each under its own source threshold.
    llm_tiers = tiers(llm_found, text)
    pattern_tiers = tiers(pattern_found, text)
    llm_out = build.Gated(
        *gate(catalog, text, llm_found, safety, source=LLM_SOURCE, policy=policy, tiers=llm_tiers),
        problems=llm_problems,
    )
    # Dates the patterns would not guess ("03/04", a weekday that contradicts its date) are
    # recorded with the reason, so the user can be asked instead of a day being made up.
    notes = date_notes(text, observed_at.date()) if learns else []
    patterns_out = build.Gated(
        *gate(
            catalog, text, pattern_found, safety, source=source, policy=policy, tiers=pattern_tiers
        ),
        problems=[*failed, *(NewRejection(str(n["kind"]), None, n) for n in notes)],
    )

    batch = build.message_batch(
        catalog,
        address,
        safety,
        patterns=patterns_out,
        llm=llm_out,
        findings=finding_rejections(safety, patterns_out.accepted),
        explicit_note=explicit and learns and not unsafe(safety),
        observed_at=observed_at,
        recorded_at=recorded_at,
        role=role,
        session_id=session_id,
        source=source,
        actor=actor,
        model=model.settings.model if model is not None else None,
    )
    if store is not None:
        batch.facts.extend(corrections(catalog, store, address, patterns_out, source, session_id))
    if learns:
        learned = {f.path for f in batch.facts}
        batch.hints = [h for h in reading.hints if h["path"] not in learned]
    return batch


@contextmanager
def _kept_on_fault(name: str, failed: list[NewRejection]) -> Iterator[None]:
    """Run one extractor; a fault in it is recorded, and the write goes on without its facts.

    A fault in one extractor must not lose the message: the input is archived as always,
    the other extractors still run, and the failure is recorded as a refusal naming the
    extractor and the error's type (never the text) so it can be found and fixed.
    """
    try:
        yield
    except Exception as exc:  # any fault of an extractor: the write goes on
        # Where it was raised, never the error's words: they may quote the message (PII).
        where = traceback.extract_tb(exc.__traceback__)[-1]
        _log.error(
            "the %s extractor failed on a message (%s at %s:%s); the message is kept",
            name,
            type(exc).__name__,
            where.filename,
            where.lineno,
        )
        detail = {"extractor": name, "error": type(exc).__name__}
        failed.append(NewRejection("extractor_failed", None, detail))


def framed(
    text: str,
    observed_at: dt.datetime,
    catalog: Catalog,
    history: Sequence[tuple[str, dt.datetime]],
    rules: Sequence[Candidate],
) -> Reading:
    """What the frames find beside the patterns' candidates `rules` (one answer where both
    read the same path in the same sentence), and hints for a calling agent (nothing without
    the encoder).

    Imported here, not at the top: the encoder's arrays load only when a message is read.
    """
    from uac.fact_log.extraction import frames

    if not frames.available():
        return Reading([], [])
    return frames.read(text, observed_at, catalog, history, rules=rules)


def judged(
    catalog: Catalog,
    text: str,
    found: list[Candidate],
    framed: Sequence[Candidate],
    observed_at: dt.datetime,
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """The rules' and frames' candidates the learned judge keeps, and the hints of those it
    doubts (extraction/judge.py; all kept when it is off or the encoder is missing).

    Imported here, not at the top, as the frames are: it loads only when a message is read.
    """
    from uac.fact_log.extraction import judge

    if not judge.available():
        return found, []
    kept, doubted = judge.judge(catalog, text, found, framed, observed_at)
    return kept, [d.hint() for d in doubted]


def corrections(
    catalog: Catalog,
    store: Store,
    address: Address,
    gated: build.Gated,
    source: str,
    session_id: str | None,
) -> list[NewFact]:
    """Retracts of the records an accepted correction supersedes under another record key.

    "Actually the dentist moved to Friday": the event's key (title, start) changes, so the
    fold would keep Thursday's record beside Friday's; the earlier fact is retracted instead.
    """
    out: list[NewFact] = []
    for acc in gated.accepted:
        cand = acc.candidate
        coll = catalog.collection(cand.path)
        if cand.replaces is None or coll is None or not isinstance(cand.replaces, dict):
            continue
        old_key = record_key(cand.replaces, coll.spec.key)
        if old_key == record_key(cand.value, coll.spec.key):
            continue  # same record: the fold merges the new value in
        earlier = [
            f
            for f in store.facts(address, cand.path)
            if f.record_key == old_key and f.op == "assert"
        ]
        if earlier:
            out.append(
                NewFact(
                    op="retract",
                    kind="record",
                    path=cand.path,
                    record_key=old_key,
                    value={"target": earlier[-1].id},
                    text=cand.quote,
                    source=source,
                    confidence=cand.confidence,
                    evidence={"intent": "correction", "quote": cand.quote},
                    input_index=0,
                    session_id=session_id,
                )
            )
    return out


HISTORY_LIMIT = 12  # earlier messages of a session the patterns read (a thread is short)


def session_history(
    store: Store,
    address: Address,
    session_id: str | None,
    role: str = "user",
    before: dt.datetime | None = None,
) -> list[tuple[str, dt.datetime]]:
    """The session's user messages said up to `before` (the new message's time), as the store
    archived them, for `history`."""
    if session_id is None or role != "user":
        return []
    return store.session_messages(address, session_id, HISTORY_LIMIT, before)


def build_note_batch(
    catalog: Catalog,
    address: Address,
    text: str,
    *,
    note_id: str,
    recorded_at: dt.datetime,
    actor: str = "api",
    session_id: str | None = None,
    policy: Policy | None = None,
) -> Batch:
    """Archive a Markdown note (masked) with the facts and refusals it yields, one Batch."""
    note_id = check_note_id(note_id)
    parsed = parse_note(text)
    text = text.removeprefix("\ufeff")  # offsets are into the text the parser saw
    policy = policy or default_policy()
    safety = scan(text)
    proposed = note_candidates(catalog, parsed, text, note_id)
    cands = [cand for cand, _line in proposed.candidates]
    cand_tiers = tiers(cands, text)
    # One candidate at a time, so each refusal can name its line.
    gated = [
        gate(catalog, text, [cand], safety, source=NOTE_SOURCE, policy=policy, tiers=[tier])
        for cand, tier in zip(cands, cand_tiers, strict=True)
    ]
    secret_spans = [
        (cand.start, cand.end)
        for cand, (_ok, refused) in zip(cands, gated, strict=True)
        for rej in refused
        if rej.reason == "secret"
    ]
    return build.note_batch(
        catalog,
        address,
        safety,
        note_id=note_id,
        lines=[line for _cand, line in proposed.candidates],
        gated=gated,
        refusals=proposed.refusals,
        secrets=stray_secrets(text, safety, secret_spans, note_id),
        observed_at=note_observed_at(parsed, recorded_at),
        recorded_at=recorded_at,
        session_id=session_id,
        actor=actor,
    )


def build_import_batch(
    catalog: Catalog,
    address: Address,
    collection: str,
    records: list[RawRecord],
    *,
    text: str,
    name: str,
    previous_schema: dict[str, str] | None,
    recorded_at: dt.datetime,
    session_id: str | None = None,
    actor: str = "api",
    progress: Report | None = None,
    seen: Counter[str] | None = None,
) -> tuple[Batch, Prepared]:
    """Archive an import's raw text with one fact per record (and the records as prepared).

    `previous_schema` is the schema inferred by an earlier import of the same unknown
    collection (the caller reads it from the store), so the new records must still fit it.
    `progress` hears each stage: validating and screening count records. `seen` counts the
    import's record keys across its chunks (`importer.prepare`).
    """
    prepared = prepare(
        catalog,
        collection,
        counted(records, "validating", progress),
        name,
        previous_schema,
        seen=seen,
    )
    screened = screen_records(
        counted(prepared.facts, "screening", progress), sensitive_fields(catalog)
    )
    prepared.facts = screened.facts
    done = step(progress, "masking the archive")
    archive, _found = mask_text(text)
    done()
    if screened.rejections:
        # A secret inside a record may be escaped in the file ("\u0070assword") where the
        # text scan cannot see it: archive the masked records instead of the raw file.
        archive = "\n".join(canonical_json(f.value) for f in screened.facts)
    schema = (prepared.path, prepared.schema) if prepared.schema is not None else None
    batch = build.import_batch(
        address,
        prepared.facts,
        schema,
        text=archive,
        name=name,
        recorded_at=recorded_at,
        session_id=session_id,
        actor=actor,
    )
    batch.rejections.extend(screened.rejections)
    return batch, prepared


def import_batches(
    catalog: Catalog,
    address: Address,
    collection: str,
    chunks: Iterable[Chunk],
    *,
    name: str,
    previous_schema: dict[str, str] | None,
    recorded_at: dt.datetime,
    session_id: str | None = None,
    actor: str = "api",
    progress: Report | None = None,
    done: list[Prepared] | None = None,
) -> Iterator[Batch]:
    """`build_import_batch` chunk by chunk, for `Store.append_stream`: one batch per chunk.

    Each chunk is archived as its own input (the first keeps `name`, the next ones are
    "NAME (part K)"); an inferred schema widens from chunk to chunk: each batch carries the
    schema of the file so far, and the store records the last one given (once). A batch is
    yielded as soon as it is built, so no more than one chunk's records are held. The last
    chunk's `Prepared` (its path, whether the collection is known, the final schema; not
    its facts) is appended to `done`.
    """
    schema = previous_schema
    last: Prepared | None = None
    seen: Counter[str] = Counter()  # record keys so far: identical rows across chunks count
    for number, chunk in enumerate(chunks, 1):
        batch, prepared = build_import_batch(
            catalog,
            address,
            collection,
            chunk.records,
            text=chunk.text,
            name=name,  # errors name the file
            previous_schema=schema,
            recorded_at=recorded_at,
            session_id=session_id,
            actor=actor,
            progress=progress,
            seen=seen,
        )
        del chunk  # the records now live in the batch's facts only
        if number > 1:
            batch.inputs[0].name = f"{name} (part {number})"
        schema = prepared.schema
        last = replace(prepared, facts=[])
        yield batch
    if last is not None and done is not None:
        done.append(last)
