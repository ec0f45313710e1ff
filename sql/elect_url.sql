-- Phase 2: one winner per canonical URL, by the configured election order.
DROP TABLE IF EXISTS temp.run_url_election;
CREATE TEMP TABLE run_url_election AS
SELECT id,
       ROW_NUMBER() OVER w AS url_rank,
       FIRST_VALUE(id) OVER w AS url_winner
FROM temp.run_prepared
WHERE ignored IS NULL
WINDOW w AS (PARTITION BY url_key ORDER BY {election});
CREATE UNIQUE INDEX temp.run_url_election_id ON run_url_election(id);
