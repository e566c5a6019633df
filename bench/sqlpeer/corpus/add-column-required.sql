-- family: sql-add-column-not-null
-- source: squawk adding-required-field docs; Atlas MF103
-- expect: flag sql-add-column-not-null
-- squawk: flag adding-required-field
-- file
ALTER TABLE "recipe" ADD COLUMN "public" boolean NOT NULL;
