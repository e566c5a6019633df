-- family: sql-reindex-blocking
-- source: PostgreSQL REINDEX options
-- expect: flag sql-reindex-blocking
-- squawk: pass
-- file
-- codeloc:no-transaction
REINDEX (CONCURRENTLY false) TABLE items;
