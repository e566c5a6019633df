-- family: sql-set-not-null
-- source: squawk adding-not-nullable-field docs
-- expect: flag sql-set-not-null
-- squawk: flag adding-not-nullable-field
-- file
ALTER TABLE "recipe" ALTER COLUMN "view_count" SET NOT NULL;
