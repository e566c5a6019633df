-- family: sql-drop-database
-- source: squawk ban-drop-database docs
-- expect: flag sql-drop-database
-- squawk: flag ban-drop-database
-- file
DROP DATABASE "table_name";
