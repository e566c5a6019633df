-- family: sql-unique-constraint
-- source: squawk disallowed-unique-constraint docs (its safe form, second file)
-- expect: pass
-- squawk: pass
-- file
ALTER TABLE table_name ADD CONSTRAINT field_name_constraint UNIQUE USING INDEX field_name_idx;
