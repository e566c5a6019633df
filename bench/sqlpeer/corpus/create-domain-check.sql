-- family: sql-domain-constraint
-- source: squawk ban-create-domain-with-constraint docs
-- expect: pass
-- squawk: flag ban-create-domain-with-constraint
-- file
CREATE DOMAIN domain_name AS TEXT CHECK (value ~ '^[a-z]+$');
