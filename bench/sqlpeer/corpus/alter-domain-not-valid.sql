-- family: sql-domain-constraint
-- source: squawk ban-alter-domain-with-add-constraint tests
-- expect: pass
-- squawk: flag ban-alter-domain-with-add-constraint
-- file
ALTER DOMAIN domain_name ADD CONSTRAINT constraint_name CHECK (value > 0) NOT VALID;
