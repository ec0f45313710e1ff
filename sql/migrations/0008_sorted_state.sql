-- Schema version 8: state a run writes in key order.
--
-- No band table. A page's LSH band keys are its sketch (`_webdedup_sketches.sketch`: minhash
-- keeps its 37 band keys of 32 bits there instead of the 128-value signature; simhash keeps
-- its hash, from which the keys follow), and a run finds collisions by sorting the keys in
-- memory (webdedup/algorithms/bands.py). The table's 37 rows a page were most of the state
-- and of the bytes a run wrote.
--
-- No secondary index on _webdedup_prepared: the lookups a nightly run makes by canonical URL
-- and by content hash (sql/region_step.sql) go to two tables keyed by them. A large run writes
-- its state in batches (phase 5); rows added to an index one batch at a time land on random
-- leaves, so each batch rewrote nearly the whole index (5.5 GB written for the 443 MB of
-- prepared rows of a million pages). These tables are filled in their key order instead.
-- They are filled here from the stored rows: a database migrated outside a run (a verdict
-- posted in the review app, add_content_hash_column) keeps state a nightly run can grow from.
DROP TABLE IF EXISTS _webdedup_bands;
DROP INDEX IF EXISTS _webdedup_prepared_url_key;
DROP INDEX IF EXISTS _webdedup_prepared_content_hash;
CREATE TABLE IF NOT EXISTS _webdedup_url_keys (
    url_key TEXT NOT NULL,
    id      INTEGER NOT NULL,
    PRIMARY KEY (url_key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _webdedup_content_hashes (
    content_hash TEXT NOT NULL,
    id           INTEGER NOT NULL,
    PRIMARY KEY (content_hash, id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO _webdedup_url_keys (url_key, id)
SELECT url_key, id FROM _webdedup_prepared ORDER BY url_key, id;
INSERT OR IGNORE INTO _webdedup_content_hashes (content_hash, id)
SELECT content_hash, id FROM _webdedup_prepared WHERE content_hash IS NOT NULL
ORDER BY content_hash, id;
