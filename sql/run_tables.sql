-- Work tables of one run. They live in the TEMP schema, so nothing in the crawl database
-- changes until the single write-back transaction at the end.
DROP TABLE IF EXISTS temp.run_prepared;
CREATE TEMP TABLE run_prepared (  -- the columns of main._webdedup_prepared, in the same order
    id INTEGER PRIMARY KEY, url_hash TEXT NOT NULL, canonical_url TEXT, url_key TEXT NOT NULL,
    host TEXT, content_hash TEXT, text_len INTEGER NOT NULL, word_count INTEGER NOT NULL,
    is_external INTEGER NOT NULL, is_https INTEGER NOT NULL, url_len INTEGER NOT NULL,
    dt REAL, crawled_ts REAL, ignored TEXT, lang TEXT, lang_score REAL
);
DROP TABLE IF EXISTS temp.run_sketches;
CREATE TEMP TABLE run_sketches (id INTEGER PRIMARY KEY, scheme TEXT NOT NULL, sketch BLOB NOT NULL);
DROP TABLE IF EXISTS temp.run_edges;
CREATE TEMP TABLE run_edges (a INTEGER NOT NULL, b INTEGER NOT NULL, score REAL NOT NULL,
                             method TEXT NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID;
-- the exact groups' winners that have group edges, whose election order phase 4's clustering
-- reads (webdedup.pipeline.phase4_near._ElectionOrder)
DROP TABLE IF EXISTS temp.run_linked;
CREATE TEMP TABLE run_linked (node INTEGER PRIMARY KEY);
DROP TABLE IF EXISTS temp.run_near;
CREATE TEMP TABLE run_near (id INTEGER PRIMARY KEY, center INTEGER NOT NULL, score REAL NOT NULL);
DROP TABLE IF EXISTS temp.run_url_election;
DROP TABLE IF EXISTS temp.run_exact_component;
CREATE TEMP TABLE run_exact_component (id INTEGER PRIMARY KEY, component INTEGER NOT NULL);
DROP TABLE IF EXISTS temp.run_exact_election;
DROP TABLE IF EXISTS temp.run_assign;
DROP TABLE IF EXISTS temp.run_only;
DROP TABLE IF EXISTS temp.run_lev_nodes;
CREATE TEMP TABLE run_lev_nodes (id INTEGER PRIMARY KEY, url_key TEXT NOT NULL,
                                 component INTEGER NOT NULL, length INTEGER NOT NULL);
DROP TABLE IF EXISTS temp.run_lev_left;
CREATE TEMP TABLE run_lev_left (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b))
    WITHOUT ROWID;
DROP TABLE IF EXISTS temp.run_scores;  -- the verified score of each minhash candidate pair
CREATE TEMP TABLE run_scores (a INTEGER NOT NULL, b INTEGER NOT NULL, score REAL NOT NULL,
                              cached INTEGER NOT NULL DEFAULT 0,  -- 1: from the stored cache
                              PRIMARY KEY (a, b)) WITHOUT ROWID;
DROP TABLE IF EXISTS temp.run_verified;
CREATE TEMP TABLE run_verified (hash_a TEXT NOT NULL, hash_b TEXT NOT NULL, score REAL NOT NULL,
                                PRIMARY KEY (hash_a, hash_b)) WITHOUT ROWID;
-- each prepared page's segments (sql/segments_*.sql; webdedup.algorithms.segments)
DROP TABLE IF EXISTS temp.run_segments;
CREATE TEMP TABLE run_segments (host TEXT NOT NULL, hash INTEGER NOT NULL, id INTEGER NOT NULL,
                                PRIMARY KEY (host, hash, id)) WITHOUT ROWID;
-- a page's segments by id: every chain-floor check of a stripping run looks its pages up
CREATE INDEX temp.run_segments_id ON run_segments (id);
-- own content (webdedup.pipeline.own_content): the own texts of the near nodes whose host
-- repeats some of their lines, the thin texts of each host, and the thin pages
DROP TABLE IF EXISTS temp.run_own;
-- (text_key: what the verification cache knows the own text by, in place of the page's
-- content hash: webdedup.pipeline.own_content.own_key)
CREATE TEMP TABLE run_own (id INTEGER PRIMARY KEY, text TEXT NOT NULL, text_key TEXT NOT NULL);
DROP TABLE IF EXISTS temp.run_thin_texts;
CREATE TEMP TABLE run_thin_texts (host TEXT NOT NULL, content_hash TEXT NOT NULL,
                                  reason TEXT NOT NULL, PRIMARY KEY (host, content_hash))
    WITHOUT ROWID;
DROP TABLE IF EXISTS temp.run_thin;
CREATE TEMP TABLE run_thin (id INTEGER PRIMARY KEY, reason TEXT NOT NULL);
-- The stored pages by host, copied from the prepared rows when the state predates
-- _webdedup_hosts (webdedup.store.state.host_pages makes it on first use).
DROP TABLE IF EXISTS temp.run_stored_hosts;
