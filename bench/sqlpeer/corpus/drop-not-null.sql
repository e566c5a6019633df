-- family: sql-drop
-- source: squawk ban-drop-not-null docs
-- expect: pass
-- squawk: flag ban-drop-not-null
-- file
ALTER TABLE "bar_tbl" ALTER COLUMN "foo_col" DROP NOT NULL;
