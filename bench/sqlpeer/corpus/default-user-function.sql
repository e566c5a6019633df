-- family: sql-volatile-default
-- source: squawk adding-field-with-default tests
-- expect: flag sql-volatile-default
-- squawk: flag adding-field-with-default
-- file
ALTER TABLE "core_recipe" ADD COLUMN "foo" uuid DEFAULT uuid();
