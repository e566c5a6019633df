-- family: sql-rename
-- source: squawk renaming-table docs; Atlas BC101
-- expect: flag sql-rename
-- squawk: flag renaming-table
-- file
ALTER TABLE "table_name" RENAME TO "new_table_name";
