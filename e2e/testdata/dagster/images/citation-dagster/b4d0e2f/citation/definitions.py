"""citation's Dagster definitions, as its image registry:80/citation-dagster:b4d0e2f
holds them: the researchers of the table its migration 001 made (pgvector),
joined with mediawatch's mart."""

import json
import os
from pathlib import Path

import dagster as dg

MEDIAWATCH_MART = dg.AssetKey(["mediawatch", "mentions_by_researcher"])


def connect():
    """The pgvector database: libpq's PG* variables (PGHOST, PGPORT,
    PGDATABASE), the role of the declared Secret pgvector-pg-auth (its keys
    username and password, env_secrets of the container context)."""
    import psycopg2

    return psycopg2.connect(
        user=os.environ.get("username", os.environ.get("PGUSER", "")),
        password=os.environ.get("password", os.environ.get("PGPASSWORD", "")),
    )


@dg.asset(key_prefix="citation", group_name="citation")
def researchers() -> list[dict]:
    """The researchers of the table migration 001 created."""
    with connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT orcid, full_name FROM researchers ORDER BY id")
        return [{"orcid": o, "full_name": n} for o, n in cur.fetchall()]


@dg.asset(key_prefix="citation", group_name="citation", deps=[MEDIAWATCH_MART])
def researcher_visibility(context: dg.AssetExecutionContext, researchers: list[dict]) -> dg.MaterializeResult:
    """Each researcher's press mentions, read from mediawatch's mart."""
    datalake = Path(os.environ.get("ATLAS_DATALAKE_DIR", "/tmp/atlas-datalake"))
    mart = json.loads((datalake / "mediawatch" / "mentions_by_researcher.json").read_text())
    visible = {r["orcid"]: mart.get(r["orcid"], 0) for r in researchers}
    context.log.info(f"visibility from mediawatch's mart: {visible}")
    return dg.MaterializeResult(metadata={"researchers": len(visible), "mentions": sum(visible.values())})


@dg.asset(key_prefix="citation", group_name="citation")
def citation_counts() -> dict:
    """New in b4d0e2f: citations per researcher, from the table migration 002 created."""
    with connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT researcher, count(*) FROM citations GROUP BY researcher")
        return {str(r): n for r, n in cur.fetchall()}


defs = dg.Definitions(
    assets=[researchers, researcher_visibility, citation_counts],
    jobs=[dg.define_asset_job("citation_daily", selection=dg.AssetSelection.groups("citation"))],
)
