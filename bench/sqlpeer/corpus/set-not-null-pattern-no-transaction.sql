-- family: sql-set-not-null
-- source: squawk adding-not-nullable-field tests
-- expect: pass
-- squawk: flag constraint-missing-not-valid (with --assume-in-transaction it takes every file for a transaction)
-- file
-- codeloc:no-transaction
ALTER TABLE recipe DROP CONSTRAINT IF EXISTS view_count_not_null, ADD CONSTRAINT view_count_not_null CHECK (view_count IS NOT NULL) NOT VALID;
ALTER TABLE recipe VALIDATE CONSTRAINT view_count_not_null;
ALTER TABLE recipe ALTER COLUMN view_count SET NOT NULL;
