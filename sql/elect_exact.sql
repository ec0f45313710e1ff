-- Phase 3: one winner per content hash among the URL winners.
CREATE TEMP TABLE run_exact_election AS
SELECT id,
       ROW_NUMBER() OVER w AS exact_rank,
       FIRST_VALUE(id) OVER w AS exact_winner
FROM temp.run_prepared
WHERE id IN (SELECT id FROM temp.run_url_election WHERE url_winner = id)
WINDOW w AS (PARTITION BY content_hash ORDER BY {election});
CREATE UNIQUE INDEX temp.run_exact_election_id ON run_exact_election(id);
