-- family: sql-add-column-not-null
-- source: PostgreSQL's ALTER TABLE docs (ADD COLUMN fills existing rows with the default, and DEFAULT NULL is the same as none); squawk adding-required-field
-- expect: flag sql-add-column-not-null
-- squawk: pass (adding-required-field asks for a DEFAULT and does not read it: NULL passes)
-- file
ALTER TABLE "recipe" ADD COLUMN "public" boolean NOT NULL DEFAULT NULL;
