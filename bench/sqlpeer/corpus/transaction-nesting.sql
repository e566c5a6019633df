-- family: sql-transaction-control
-- source: squawk transaction-nesting docs
-- expect: flag sql-transaction-control
-- squawk: flag transaction-nesting
-- file
BEGIN;
ALTER TABLE "core_recipe" ADD COLUMN "foo" integer;
COMMIT;
