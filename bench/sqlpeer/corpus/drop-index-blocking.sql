-- family: sql-index-blocking
-- source: squawk require-concurrent-index-deletion docs
-- expect: flag sql-index-blocking
-- squawk: flag require-concurrent-index-deletion
-- file
DROP INDEX IF EXISTS "field_name_idx";
