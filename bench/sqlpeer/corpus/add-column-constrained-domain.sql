-- family: sql-table-rewrite
-- source: PostgreSQL's ATExecAddColumn (a domain with constraints sets AT_REWRITE_DEFAULT_VAL, default or not); squawk ban-create-domain-with-constraint
-- expect: flag sql-table-rewrite
-- squawk: flag ban-create-domain-with-constraint (on the first file, for the domain itself; it passes the ADD COLUMN, which rewrites the table)
-- file
CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0);
-- file
ALTER TABLE recipe ADD COLUMN servings positive_int;
