-- family: sql-set-not-null
-- source: squawk adding-not-nullable-field docs (its safe form, as one file)
-- expect: flag sql-validate-same-transaction
-- squawk: flag constraint-missing-not-valid
-- file
ALTER TABLE "recipe" ADD CONSTRAINT view_count_not_null CHECK ("view_count" IS NOT NULL) NOT VALID;
ALTER TABLE "recipe" VALIDATE CONSTRAINT view_count_not_null;
ALTER TABLE "recipe" ALTER COLUMN "view_count" SET NOT NULL;
