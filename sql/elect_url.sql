-- Phase 2: one winner per canonical URL, by the configured election order.
-- Most URL keys are one page's: only the pages of a key that two or more pages share go
-- through the window (whose sort carries every column of the order; run_url_keys, in key
-- order, finds them: lookup_keys.sql), and every other page wins alone. A key whose second page is ignored is one
-- page's in the window too: it wins alone there as well.
DROP TABLE IF EXISTS temp.run_url_election;
DROP TABLE IF EXISTS temp.run_url_shared;
CREATE TEMP TABLE run_url_shared (id INTEGER PRIMARY KEY, url_rank INTEGER NOT NULL,
                                  url_winner INTEGER NOT NULL);
INSERT INTO temp.run_url_shared (id, url_rank, url_winner)
SELECT id, ROW_NUMBER() OVER w, FIRST_VALUE(id) OVER w
FROM temp.run_prepared
WHERE ignored IS NULL
  AND url_key IN (SELECT url_key FROM temp.run_url_keys GROUP BY url_key HAVING count(*) > 1)
WINDOW w AS (PARTITION BY url_key ORDER BY {election});
CREATE TEMP TABLE run_url_election (id INTEGER PRIMARY KEY, url_rank INTEGER NOT NULL,
                                    url_winner INTEGER NOT NULL);
INSERT INTO temp.run_url_election (id, url_rank, url_winner)
SELECT p.id, coalesce(s.url_rank, 1), coalesce(s.url_winner, p.id)
FROM temp.run_prepared AS p
LEFT JOIN temp.run_url_shared AS s ON s.id = p.id
WHERE p.ignored IS NULL
ORDER BY p.id;
DROP TABLE temp.run_url_shared;
