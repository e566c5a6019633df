-- family: sql-rename
-- source: squawk renaming-column docs; Atlas BC102
-- expect: flag sql-rename
-- squawk: flag renaming-column
-- file
ALTER TABLE "table_name" RENAME COLUMN "column_name" TO "new_column_name";
