-- family: sql-constraint-validated
-- source: squawk constraint-missing-not-valid docs
-- expect: flag sql-constraint-validated
-- squawk: flag constraint-missing-not-valid
-- file
ALTER TABLE "accounts" ADD CONSTRAINT "positive_balance" CHECK ("balance" >= 0);
