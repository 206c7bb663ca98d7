"""What marks an input as quarantined, for the read side (rejections, inputs, search).

An input with one of these rejections is quarantined: kept (masked) for the audit trail,
never indexed, searched, put into context or shown unless an operator asks. The names live
here, not with the secret filter that records them (fact_log/extraction/screen.py), so a
read that only hides quarantined inputs never loads the extractor.
"""

from __future__ import annotations

QUARANTINE_REASONS = ("secret", "instruction_refused")
QUARANTINED = "[quarantined: refused as a secret or an instruction; see `uac rejections --show`]"
