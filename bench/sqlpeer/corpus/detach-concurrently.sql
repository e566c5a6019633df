-- family: sql-detach-blocking
-- source: PostgreSQL ALTER TABLE
-- expect: pass
-- squawk: pass
-- file
-- codeloc:no-transaction
ALTER TABLE measurements DETACH PARTITION measurements_2024 CONCURRENTLY;
