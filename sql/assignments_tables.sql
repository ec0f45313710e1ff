-- `webdedup db --assignments`: the elections of a Daft run, in the TEMP tables that phases 2
-- and 3 would have made (sql/elect_url.sql, sql/elect_exact.sql), filled from its Parquet.
DROP TABLE IF EXISTS temp.run_url_election;
CREATE TEMP TABLE run_url_election (id INTEGER NOT NULL, url_rank INTEGER NOT NULL,
                                    url_winner INTEGER NOT NULL);
CREATE UNIQUE INDEX temp.run_url_election_id ON run_url_election(id);
DROP TABLE IF EXISTS temp.run_exact_election;
CREATE TEMP TABLE run_exact_election (id INTEGER NOT NULL, exact_rank INTEGER NOT NULL,
                                      exact_winner INTEGER NOT NULL);
CREATE UNIQUE INDEX temp.run_exact_election_id ON run_exact_election(id);
