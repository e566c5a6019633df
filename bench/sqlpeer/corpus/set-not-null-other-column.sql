-- family: sql-set-not-null
-- source: squawk adding-not-nullable-field tests
-- expect: flag sql-set-not-null
-- squawk: flag adding-not-nullable-field
-- file
ALTER TABLE recipe ADD CONSTRAINT c_nn CHECK (cook_time IS NOT NULL) NOT VALID;
-- file
ALTER TABLE recipe VALIDATE CONSTRAINT c_nn;
-- file
ALTER TABLE recipe ALTER COLUMN view_count SET NOT NULL;
