-- Replace webdedup's stored state by this run's (inside the write-back transaction).
DELETE FROM main._prepared;
INSERT INTO main._prepared SELECT * FROM temp.run_prepared;
DELETE FROM main._webdedup_sketches;
INSERT INTO main._webdedup_sketches SELECT * FROM temp.run_sketches;
DELETE FROM main._webdedup_bands;
INSERT INTO main._webdedup_bands SELECT * FROM temp.run_bands;
DELETE FROM main._webdedup_edges;
INSERT INTO main._webdedup_edges SELECT * FROM temp.run_edges;
