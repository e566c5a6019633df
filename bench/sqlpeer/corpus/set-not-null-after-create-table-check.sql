-- family: sql-set-not-null
-- source: PostgreSQL's transformCheckConstraints (a new table's CHECK constraints are valid, NOT VALID or not) and ALTER TABLE's docs (SET NOT NULL skips the scan when a valid CHECK proves no NULL can exist)
-- expect: pass
-- squawk: flag adding-not-nullable-field (it cannot see the earlier files)
-- file
CREATE TABLE recipe (id bigint PRIMARY KEY, view_count int CONSTRAINT view_count_not_null CHECK (view_count IS NOT NULL));
-- file
ALTER TABLE recipe ALTER COLUMN view_count SET NOT NULL;
