"""A code-location whose Dagster code does not load (the e2e's bad input):
the asset names an upstream that does not exist, which Dagster refuses when
it builds the definitions' asset graph."""

import dagster as dg


@dg.asset
def report(missing_upstream: int) -> int:
    return missing_upstream


defs = dg.Definitions(assets=[report])
