-- family: sql-drop
-- source: squawk ban-drop-table docs; Atlas DS102
-- expect: flag sql-drop
-- squawk: flag ban-drop-table
-- file
DROP TABLE "table_name";
