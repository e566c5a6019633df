-- family: sql-validate-same-transaction
-- source: squawk constraint-missing-not-valid docs (its safe form)
-- expect: pass
-- squawk: pass
-- file
ALTER TABLE "app_email" ADD CONSTRAINT "fk_user" FOREIGN KEY (user_id) REFERENCES "app_user" (id) NOT VALID;
-- file
ALTER TABLE "app_email" VALIDATE CONSTRAINT "fk_user";
