-- codeloc:no-transaction
-- Plain-SQL twin of fixtures/citation/migrations/001-researchers-hnsw.sql,
-- for the tests that need no pgvector (TestADRMigrationWithPgvector runs the
-- real one): a real[] embedding and a btree index built CONCURRENTLY, which
-- needs to run outside a transaction.
CREATE TABLE IF NOT EXISTS researchers (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    orcid       text UNIQUE,
    full_name   text NOT NULL,
    affiliation text,
    embedding   real[] NOT NULL CHECK (cardinality(embedding) = 384),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX CONCURRENTLY IF NOT EXISTS researchers_full_name
    ON researchers (full_name);

CREATE INDEX CONCURRENTLY IF NOT EXISTS researchers_affiliation
    ON researchers (affiliation) WHERE affiliation IS NOT NULL;
