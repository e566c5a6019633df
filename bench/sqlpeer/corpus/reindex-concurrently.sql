-- family: sql-reindex-blocking
-- source: PostgreSQL REINDEX
-- expect: pass
-- squawk: pass
-- file
-- codeloc:no-transaction
REINDEX INDEX CONCURRENTLY items_pkey;
