-- family: sql-unique-constraint
-- source: squawk disallowed-unique-constraint docs; Atlas MF101
-- expect: flag sql-unique-constraint
-- squawk: flag disallowed-unique-constraint
-- file
ALTER TABLE table_name ADD CONSTRAINT field_name_constraint UNIQUE (field_name);
