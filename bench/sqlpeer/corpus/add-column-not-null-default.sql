-- family: sql-add-column-not-null
-- source: squawk adding-required-field docs (its safe form)
-- expect: pass
-- squawk: pass
-- file
ALTER TABLE "recipe" ADD COLUMN "public" boolean NOT NULL DEFAULT true;
