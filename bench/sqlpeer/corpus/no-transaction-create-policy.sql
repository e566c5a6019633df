-- family: sql-not-rerunnable
-- source: squawk prefer-robust-stmts docs (CREATE without IF NOT EXISTS fails on a retry); PostgreSQL's CREATE POLICY, which has no IF NOT EXISTS
-- expect: flag sql-not-rerunnable
-- squawk: flag ban-concurrent-index-creation-in-transaction (for another reason: it cannot see the marker, and prefer-robust-stmts is silent in a transaction)
-- file
-- codeloc:no-transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS recipe_owner ON recipe (owner_id);
CREATE POLICY recipe_owner_only ON recipe USING (owner_id = current_setting('app.user_id')::bigint);
