-- Phase 3: one winner per exact component among the URL winners. A component is a set of URL
-- groups linked by shared content hashes (run_exact_component, from sql/exact_links.sql); a
-- URL winner without a row there is its own component.
DROP TABLE IF EXISTS temp.run_exact_election;
CREATE TEMP TABLE run_exact_election AS
SELECT id,
       ROW_NUMBER() OVER w AS exact_rank,
       FIRST_VALUE(id) OVER w AS exact_winner
FROM (SELECT p.*, COALESCE(c.component, p.id) AS component
      FROM temp.run_prepared AS p
      LEFT JOIN temp.run_exact_component AS c ON c.id = p.id
      WHERE p.id IN (SELECT id FROM temp.run_url_election WHERE url_winner = id))
WINDOW w AS (PARTITION BY component ORDER BY {election});
CREATE UNIQUE INDEX temp.run_exact_election_id ON run_exact_election(id);
