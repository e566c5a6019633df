-- family: sql-index-blocking
-- source: squawk require-concurrent-index-creation tests
-- expect: pass
-- squawk: pass
-- file
CREATE TABLE t (id bigint PRIMARY KEY, c text);
CREATE INDEX t_c ON t (c);
