-- family: sql-column-type-change
-- source: squawk changing-column-type docs; Atlas PG110
-- expect: flag sql-column-type-change
-- squawk: flag changing-column-type
-- file
ALTER TABLE "core_recipe" ALTER COLUMN "edits" TYPE text USING "edits"::text;
