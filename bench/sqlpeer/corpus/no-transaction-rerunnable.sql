-- family: sql-not-rerunnable
-- source: squawk prefer-robust-stmts docs (its safe form)
-- expect: pass
-- squawk: flag ban-concurrent-index-creation-in-transaction
-- file
-- codeloc:no-transaction
CREATE TABLE IF NOT EXISTS "app_user" (id bigint PRIMARY KEY, email text);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "app_user_email" ON "app_user" ("email");
