"""Value parsers the rules (`patterns/`) and the frames' slots (`slots.py`) share: amounts
of money with the currencies of `reference/data/vocabulary.toml` and numbers said in words,
and `amount_at`, the whole amount a rule's capture is part of (`money`); known cities and
countries (`places`, from `fact_log/reference/data/places.toml`); subscription services by
name (`services`); weights in kilograms, counts grouped in thousands ("84 500") and a drug's
strength (`quantities`); which part a place plays in a journey (origin, stop, destination) and
which name a payment is to (`roles`). Dates and times are the time model's
(`fact_log/extraction/timemodel/`)."""
