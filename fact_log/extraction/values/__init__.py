"""Value parsers the rules (`patterns/`) and the frames' slots (`slots.py`) share: amounts
of money and numbers said in words (`money`), known cities and countries (`places`, from
`fact_log/reference/data/places.toml`), subscription services by name (`services`), weights
in kilograms (`quantities`). Dates and times are the time model's
(`fact_log/extraction/timemodel/`)."""
