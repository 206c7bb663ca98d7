"""The extraction sets opened for tuning: the one list every frame bench reads.

A set is tuning data once its errors were read or it was retired as a blind set
(bench/extraction_data/README.md says when and why for each); the frames' labelled examples
(bench/frame_examples.py), their thresholds (bench/frame_calibrate.py) and the
leave-one-set-out scores (bench/frames_cv.py, bench/frame_stages.py) come from these sets
only. The blind sets (blind7, blind8, blind13 to blind15, blind18 and any later one) are never
named here.
"""

from __future__ import annotations

# errors read and rules or frames tuned on them
OPENED = ("dev", "heldout", "fresh", "blind2", "blind3", "blind4", "blind5", "blind6")
# retired as blind sets after two or three counts-only reads, never tuned on before:
# blind9 to blind11 on 2026-12-07 (early), blind12 on 2026-12-07 (after its third read),
# blind16 on 2026-12-07 (evening, after its third read), blind17 on 2026-12-07 (late evening,
# after its third read)
RETIRED = ("blind9", "blind10", "blind11", "blind12", "blind16", "blind17")
TUNING_SETS: tuple[str, ...] = OPENED + RETIRED
