-- family: sql-column-type-change
-- source: PostgreSQL's ALTER TABLE docs (a binary-coercible change, or a longer varchar, rewrites neither the table nor its indexes); squawk changing-column-type
-- expect: pass
-- squawk: flag changing-column-type (it does not know the column's type)
-- file
CREATE TABLE recipe (id bigint PRIMARY KEY, title varchar(80) NOT NULL, price numeric(8,2));
-- file
ALTER TABLE recipe ALTER COLUMN title TYPE varchar(200), ALTER COLUMN price TYPE numeric(12,2);
