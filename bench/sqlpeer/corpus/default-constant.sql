-- family: sql-volatile-default
-- source: squawk adding-field-with-default docs (its safe form)
-- expect: pass
-- squawk: pass
-- file
ALTER TABLE "core_recipe" ADD COLUMN "foo" integer DEFAULT 10;
