-- family: sql-table-rewrite
-- source: PostgreSQL VACUUM
-- expect: flag sql-table-rewrite
-- squawk: pass
-- file
-- codeloc:no-transaction
VACUUM FULL items;
