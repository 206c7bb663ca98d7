"""Deterministic learning from conversation: rule extraction, safety, evidence and the gate.

One user message flows through `rules.extract` (typed candidates validated against the
catalog), `safety.scan` (secrets masked, identifiers and instruction-like text refused),
`evidence.verify` (the quote must really be in the message) and `gate.build_message_batch`
(per-source thresholds, boundary check) into a `fact_log.store.Batch` ready to append.
"""

from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.gate import build_message_batch
from uac.fact_log.extraction.patterns import extract

__all__ = ["Candidate", "build_message_batch", "extract"]
