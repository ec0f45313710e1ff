-- The run's segment counts (pipeline.segments): for each (host, segment) pair this run
-- counted, the pages that carry it after the run and before it (an incremental run counts
-- only the pairs its changed pages had or have: the others keep their stored count).
DROP TABLE IF EXISTS temp.run_segment_ids;
CREATE TEMP TABLE run_segment_ids (id INTEGER PRIMARY KEY);
DROP TABLE IF EXISTS temp.run_segment_counts;
CREATE TEMP TABLE run_segment_counts (host TEXT NOT NULL, hash INTEGER NOT NULL,
                                      pages INTEGER NOT NULL, old_pages INTEGER NOT NULL,
                                      PRIMARY KEY (host, hash)) WITHOUT ROWID;
