"""mediawatch's Dagster definitions, as its image registry:80/mediawatch-dagster:5d2e8b4
holds them: press mentions of researchers, and the mart citation reads.

The mart is a JSON file in the datalake (ATLAS_DATALAKE_DIR: in the e2e, a
folder the harness gives every Dagster process, standing in for the
atlas-datalake bucket)."""

import json
import os
from pathlib import Path

import dagster as dg

MART = "mentions_by_researcher.json"


def datalake() -> Path:
    return Path(os.environ.get("ATLAS_DATALAKE_DIR", "/tmp/atlas-datalake"))


@dg.asset(key_prefix="mediawatch", group_name="mediawatch")
def mentions() -> list[dict]:
    """Press mentions of researchers (a fixed sample: the e2e has no press feed)."""
    return [
        {"orcid": "0000-0001-0000-0001", "outlet": "Le Monde"},
        {"orcid": "0000-0001-0000-0001", "outlet": "Nature News"},
        {"orcid": "0000-0002-0000-0002", "outlet": "The Guardian"},
    ]


@dg.asset(key_prefix="mediawatch", group_name="mediawatch")
def mentions_by_researcher(mentions: list[dict]) -> dg.MaterializeResult:
    """The mart citation depends on: mentions per researcher, in the datalake."""
    counts: dict[str, int] = {}
    for m in mentions:
        counts[m["orcid"]] = counts.get(m["orcid"], 0) + 1
    path = datalake() / "mediawatch" / MART
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(counts, sort_keys=True))
    return dg.MaterializeResult(metadata={"path": str(path), "researchers": len(counts)})


defs = dg.Definitions(
    assets=[mentions, mentions_by_researcher],
    jobs=[dg.define_asset_job("mediawatch_daily", selection=dg.AssetSelection.groups("mediawatch"))],
)
