-- family: sql-set-not-null
-- source: squawk adding-not-nullable-field docs (its safe form, a file per step)
-- expect: pass
-- squawk: flag adding-not-nullable-field (it cannot see the earlier files)
-- file
ALTER TABLE "recipe" ADD CONSTRAINT view_count_not_null CHECK ("view_count" IS NOT NULL) NOT VALID;
-- file
ALTER TABLE "recipe" VALIDATE CONSTRAINT view_count_not_null;
-- file
ALTER TABLE "recipe" ALTER COLUMN "view_count" SET NOT NULL;
