-- family: sql-validate-same-transaction
-- source: squawk constraint-missing-not-valid (PR #97)
-- expect: flag sql-validate-same-transaction
-- squawk: flag constraint-missing-not-valid
-- file
ALTER TABLE "app_email" ADD CONSTRAINT "fk_user" FOREIGN KEY (user_id) REFERENCES "app_user" (id) NOT VALID;
ALTER TABLE "app_email" VALIDATE CONSTRAINT "fk_user";
