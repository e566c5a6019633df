-- family: sql-volatile-default
-- source: squawk adding-field-with-default tests
-- expect: pass
-- squawk: pass
-- file
ALTER TABLE "core_recipe" ADD COLUMN "created" timestamptz DEFAULT now();
