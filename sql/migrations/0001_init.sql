-- webdedup state, schema version 1. Every table is webdedup's own and prefixed.

CREATE TABLE IF NOT EXISTS _webdedup_meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);

-- Phase 1 output: one row per page of `pages` (id = pages.rowid) as of the last run.
-- (Called _prepared by schemas 1-3: a database created by them is renamed by 0004.)
CREATE TABLE IF NOT EXISTS _webdedup_prepared (
    id            INTEGER PRIMARY KEY,
    url_hash      TEXT NOT NULL,     -- hash of the raw URL: detects rowids renumbered by VACUUM
    canonical_url TEXT,              -- NULL when the URL is not an absolute http(s) URL
    url_key       TEXT NOT NULL,     -- canonical_url, or '#<id>' so such a page stands alone
    host          TEXT,
    content_hash  TEXT,              -- SHA-1 hex of the normalized text
    text_len      INTEGER NOT NULL,  -- characters of normalized text
    word_count    INTEGER NOT NULL,
    is_external   INTEGER NOT NULL,
    is_https      INTEGER NOT NULL,
    url_len       INTEGER NOT NULL,
    dt            REAL,              -- page date, UTC epoch seconds
    crawled_ts    REAL,              -- crawl time, UTC epoch seconds
    ignored       TEXT               -- why the page was left out, NULL when processed
);
CREATE INDEX IF NOT EXISTS _webdedup_prepared_url_key ON _webdedup_prepared(url_key);
CREATE INDEX IF NOT EXISTS _webdedup_prepared_content_hash ON _webdedup_prepared(content_hash);

-- One row a run.
CREATE TABLE IF NOT EXISTS _webdedup_runs (
    id               INTEGER PRIMARY KEY,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,
    mode             TEXT NOT NULL,  -- full | incremental
    method           TEXT NOT NULL,
    fingerprint      TEXT NOT NULL,
    params           TEXT NOT NULL,  -- JSON of the configuration
    pages            INTEGER,        -- rows of pages seen
    processed        INTEGER,        -- rows (re)computed by this run
    ignored          INTEGER,
    url_duplicates   INTEGER,
    exact_duplicates INTEGER,
    near_duplicates  INTEGER,
    groups           INTEGER,
    renumbered       INTEGER,        -- rows whose rowid now holds another URL than last run
    pruned           INTEGER,
    wall_seconds     REAL,
    timings          TEXT,           -- JSON: seconds per phase
    status           TEXT NOT NULL,
    message          TEXT
);

-- Near-duplicate state (phase 4): one sketch a page, its LSH band keys, verified edges.
CREATE TABLE IF NOT EXISTS _webdedup_sketches (
    id     INTEGER PRIMARY KEY,
    scheme TEXT NOT NULL,            -- e.g. 'minhash-v1' with seed/num_perm in the blob header
    sketch BLOB NOT NULL
);
-- No index on id: a page's band rows are recomputed from its sketch when needed, so the
-- table is one B-tree filled in key order.
CREATE TABLE IF NOT EXISTS _webdedup_bands (
    band_key INTEGER NOT NULL,
    id       INTEGER NOT NULL,
    PRIMARY KEY (band_key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _webdedup_edges (
    a      INTEGER NOT NULL,         -- a < b, both page ids (exact winners)
    b      INTEGER NOT NULL,
    score  REAL NOT NULL,
    method TEXT NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
