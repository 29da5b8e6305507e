-- relent-postgres schema, version 1: the table PostgresIdempotencyStore keeps its records in.
-- Apply it with your migration tool (Flyway reads this name as version 1; Liquibase can run it as
-- a sqlFile change), or let PostgresIdempotencyStore.createSchemaIfAbsent() run it. For another
-- table name, replace relent_idempotency everywhere in a copy of this file.
--
-- One row per (scope, idem_key). Times are epoch milliseconds from the application's clock, not
-- the database's: the store compares them with the "now" its caller passes.

CREATE TABLE IF NOT EXISTS relent_idempotency (
    scope              text     NOT NULL,  -- SHA-256 hex of the caller's scope, never the raw value
    idem_key           text     NOT NULL,  -- the Idempotency-Key, unquoted
    fingerprint        text     NOT NULL,  -- SHA-256 hex of method, path and body
    token              text     NOT NULL,  -- the owner of the claim: only it may complete or release
    state              text     NOT NULL CHECK (state IN ('IN_FLIGHT', 'COMPLETED')),
    created_at_millis  bigint   NOT NULL,
    expires_at_millis  bigint   NOT NULL,  -- in flight: the lease's end; completed: the replay's
    status             integer  NOT NULL,  -- 0 while in flight
    header_names       text[]   NOT NULL,  -- one element per header value, in order
    header_values      text[]   NOT NULL,  -- NULL for a header with no value
    body               bytea    NOT NULL,
    PRIMARY KEY (scope, idem_key),
    CHECK (expires_at_millis > created_at_millis),
    CHECK (cardinality(header_names) = cardinality(header_values))
);

-- The sweep deletes expired rows in batches; this index finds them without reading the table.
CREATE INDEX IF NOT EXISTS relent_idempotency_expires_at_idx
    ON relent_idempotency (expires_at_millis);
