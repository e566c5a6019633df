-- family: sql-domain-constraint
-- source: PostgreSQL typecmds.c (SHARE lock on each table)
-- expect: flag sql-domain-constraint
-- squawk: pass
-- file
ALTER DOMAIN domain_name VALIDATE CONSTRAINT constraint_name;
