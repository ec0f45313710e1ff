-- Deduplicator(...)(db), that API's call: the rows that are not winners (temp.run_losers),
-- read after phase 5 from the annotations and the state. A loser is
--  * a page that joined another page's group (is_canonical = 0);
--  * a page left out for its URL (urls_to_ignore), its host (n_min) or its language: that
--    API drops them;
--  * a page without text (ignored as empty_text) whose canonical URL a page with text holds,
--    or which another page without text at that URL beats (newer date, newer crawl, lower id):
--    pages without text take part in URL deduplication only.
DROP TABLE IF EXISTS temp.run_losers;
CREATE TEMP TABLE run_losers (id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO temp.run_losers (id)
SELECT p.{rowid} FROM {pages} AS p WHERE p.is_canonical = 0;
INSERT OR IGNORE INTO temp.run_losers (id)
SELECT s.id FROM main._webdedup_prepared AS s
JOIN {pages} AS p ON p.{rowid} = s.id
WHERE s.ignored IS NOT NULL AND s.ignored <> 'empty_text';
INSERT OR IGNORE INTO temp.run_losers (id)
SELECT id FROM (
    SELECT s.id,
           ROW_NUMBER() OVER (PARTITION BY s.canonical_url
                              ORDER BY s.dt IS NULL, s.dt DESC,
                                       s.crawled_ts IS NULL, s.crawled_ts DESC, s.id) AS rank,
           t.canonical_url IS NOT NULL AS taken
    FROM main._webdedup_prepared AS s
    JOIN {pages} AS p ON p.{rowid} = s.id
    LEFT JOIN (SELECT DISTINCT canonical_url FROM main._webdedup_prepared
               WHERE ignored IS NULL AND canonical_url IS NOT NULL) AS t
           ON t.canonical_url = s.canonical_url
    WHERE s.ignored = 'empty_text' AND s.canonical_url IS NOT NULL
)
WHERE rank > 1 OR taken;
