-- family: sql-set-not-null
-- source: PostgreSQL's ALTER TABLE docs (PRIMARY KEY USING INDEX runs SET NOT NULL on each index column not already NOT NULL, a full scan); squawk adding-primary-key-constraint (whose safe form this is)
-- expect: flag sql-set-not-null
-- squawk: flag ban-concurrent-index-creation-in-transaction (for another reason: it cannot see the marker; it passes the PRIMARY KEY USING INDEX, its own safe form, not knowing the column is nullable)
-- file
CREATE TABLE item (id bigint, sku text);
-- file
-- codeloc:no-transaction
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS item_id ON item (id);
-- file
ALTER TABLE item ADD CONSTRAINT item_pkey PRIMARY KEY USING INDEX item_id;
