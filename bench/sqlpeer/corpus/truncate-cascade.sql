-- family: sql-truncate-cascade
-- source: squawk ban-truncate-cascade docs
-- expect: flag sql-truncate-cascade
-- squawk: flag ban-truncate-cascade
-- file
TRUNCATE a, b, c CASCADE;
