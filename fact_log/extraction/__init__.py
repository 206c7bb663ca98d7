"""The stages of the write pipeline that learn from text, one module each.

`uac.fact_log.pipeline` calls them in this order, each once, and none calls back up:
`policy` (check the input), `safety` (mask secrets and identifiers, find instruction-like
text), the extractors (`llm` when configured, `patterns` per domain, `markdown` for notes),
`evidence` (the tier each quote reaches), `gate` (eligibility: thresholds per source, the
catalog boundary, every refusal with its reason) and `batch` (one appendable Batch).
`candidate` holds what they pass along: the `Candidate` and its typing against the catalog.
"""
