-- family: sql-drop
-- source: squawk ban-drop-column docs; Atlas DS103
-- expect: flag sql-drop
-- squawk: flag ban-drop-column
-- file
ALTER TABLE "bar_tbl" DROP COLUMN "foo_col" CASCADE;
