-- family: sql-drop
-- source: Atlas DS101
-- expect: flag sql-drop
-- squawk: pass
-- file
DROP SCHEMA reporting CASCADE;
