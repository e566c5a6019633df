-- family: sql-not-rerunnable
-- source: squawk prefer-robust-stmts docs
-- expect: flag sql-not-rerunnable
-- squawk: flag ban-concurrent-index-creation-in-transaction (for another reason: prefer-robust-stmts is silent in a transaction)
-- file
-- codeloc:no-transaction
CREATE TABLE "app_user" (id bigint PRIMARY KEY, email text);
CREATE INDEX CONCURRENTLY "app_user_email" ON "app_user" ("email");
