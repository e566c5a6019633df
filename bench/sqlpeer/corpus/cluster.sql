-- family: sql-table-rewrite
-- source: PostgreSQL CLUSTER
-- expect: flag sql-table-rewrite
-- squawk: pass
-- file
CLUSTER items USING items_pkey;
