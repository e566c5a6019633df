-- family: sql-concurrently-in-transaction
-- source: squawk ban-concurrent-index-creation-in-transaction docs
-- expect: flag sql-concurrently-in-transaction
-- squawk: flag ban-concurrent-index-creation-in-transaction
-- file
CREATE INDEX CONCURRENTLY "field_name_idx" ON "table_name" ("field_name");
