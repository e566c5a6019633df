-- family: sql-refresh-blocking
-- source: PostgreSQL REFRESH MATERIALIZED VIEW
-- expect: pass
-- squawk: pass
-- file
REFRESH MATERIALIZED VIEW CONCURRENTLY daily_totals;
