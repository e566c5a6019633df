-- family: sql-index-blocking
-- source: PostgreSQL's CREATE INDEX docs (CONCURRENTLY is refused on a partitioned table: ON ONLY the parent, CONCURRENTLY on each partition, then ALTER INDEX ... ATTACH PARTITION); squawk require-concurrent-index-creation
-- expect: pass
-- squawk: flag require-concurrent-index-creation (it does not tell ON ONLY from a build, and cannot see the earlier files)
-- file
CREATE TABLE event (at date NOT NULL, kind text) PARTITION BY RANGE (at);
CREATE TABLE event_2026 PARTITION OF event FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- file
CREATE INDEX event_kind ON ONLY event (kind);
-- file
-- codeloc:no-transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS event_2026_kind ON event_2026 (kind);
-- file
ALTER INDEX event_kind ATTACH PARTITION event_2026_kind;
