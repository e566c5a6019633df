-- family: sql-index-blocking
-- source: squawk require-concurrent-index-creation docs (its safe form)
-- expect: pass
-- squawk: flag ban-concurrent-index-creation-in-transaction (it cannot see the marker)
-- file
-- codeloc:no-transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS "field_name_idx" ON "table_name" ("field_name");
