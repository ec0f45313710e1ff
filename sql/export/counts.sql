-- The verified near-duplicate pairs, for the report's meta (the other counts are
-- sql/counts.sql, through webdedup/store/counts.py).
SELECT count(*) FROM main._webdedup_edges;
