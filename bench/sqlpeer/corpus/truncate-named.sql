-- family: sql-truncate-cascade
-- source: squawk ban-truncate-cascade docs (its safe form)
-- expect: pass
-- squawk: pass
-- file
TRUNCATE a, b, c;
