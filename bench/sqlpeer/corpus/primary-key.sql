-- family: sql-unique-constraint
-- source: squawk adding-primary-key-constraint docs
-- expect: flag sql-unique-constraint
-- squawk: flag adding-primary-key-constraint
-- file
ALTER TABLE items ADD PRIMARY KEY (id);
