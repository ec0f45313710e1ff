-- The stored near-duplicate edge between two pages (:low < :high), for a verdict kept
-- without its score.
SELECT score FROM main._webdedup_edges WHERE a = :low AND b = :high
