-- family: sql-refresh-blocking
-- source: PostgreSQL REFRESH MATERIALIZED VIEW
-- expect: flag sql-refresh-blocking
-- squawk: pass
-- file
REFRESH MATERIALIZED VIEW daily_totals;
