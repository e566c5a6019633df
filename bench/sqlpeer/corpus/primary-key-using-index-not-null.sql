-- family: sql-set-not-null
-- source: PostgreSQL's ALTER TABLE docs (PRIMARY KEY USING INDEX on NOT NULL columns is a catalog change); squawk adding-primary-key-constraint
-- expect: pass
-- squawk: flag ban-concurrent-index-creation-in-transaction (for another reason: it cannot see the marker)
-- file
CREATE TABLE item (id bigint NOT NULL, sku text);
-- file
-- codeloc:no-transaction
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS item_id ON item (id);
-- file
ALTER TABLE item ADD CONSTRAINT item_pkey PRIMARY KEY USING INDEX item_id;
