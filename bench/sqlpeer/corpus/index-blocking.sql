-- family: sql-index-blocking
-- source: squawk require-concurrent-index-creation docs; Atlas PG101
-- expect: flag sql-index-blocking
-- squawk: flag require-concurrent-index-creation
-- file
CREATE INDEX "field_name_idx" ON "table_name" ("field_name");
