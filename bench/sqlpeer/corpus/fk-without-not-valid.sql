-- family: sql-constraint-validated
-- source: squawk adding-foreign-key-constraint docs
-- expect: flag sql-constraint-validated
-- squawk: flag adding-foreign-key-constraint
-- file
ALTER TABLE "email" ADD CONSTRAINT "fk_user" FOREIGN KEY ("user_id") REFERENCES "user" ("id");
