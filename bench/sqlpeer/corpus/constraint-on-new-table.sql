-- family: sql-constraint-validated
-- source: squawk constraint-missing-not-valid tests
-- expect: pass
-- squawk: pass
-- file
CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint);
ALTER TABLE accounts ADD CONSTRAINT positive_balance CHECK (balance >= 0);
