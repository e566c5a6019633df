-- family: sql-domain-constraint
-- source: squawk ban-alter-domain-with-add-constraint docs
-- expect: flag sql-domain-constraint
-- squawk: flag ban-alter-domain-with-add-constraint
-- file
ALTER DOMAIN domain_name ADD CONSTRAINT constraint_name CHECK (value IS NOT NULL);
