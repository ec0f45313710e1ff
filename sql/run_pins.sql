-- The pages reviewers chose as canonical (_webdedup_verdicts, kind 'canonical'), ranked: the
-- elections put them first (pin_rank 0 = the latest choice), see pipeline.context.election_sql.
-- The columns are not called id, so `id` inside the elections' subquery names the page.
DROP TABLE IF EXISTS temp.run_pins;
CREATE TEMP TABLE run_pins (pin_id INTEGER PRIMARY KEY, pin_rank INTEGER NOT NULL);
