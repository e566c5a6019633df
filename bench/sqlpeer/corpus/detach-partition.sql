-- family: sql-detach-blocking
-- source: PostgreSQL ALTER TABLE
-- expect: flag sql-detach-blocking
-- squawk: pass
-- file
ALTER TABLE measurements DETACH PARTITION measurements_2024;
