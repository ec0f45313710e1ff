-- Verified candidate scores in :bins equal bins over [0, 1] (a score of 1 goes to the last).
-- {source}: the scores to count, one row a pair (see webdedup.output.pictures.score_source).
SELECT min(CAST(score * :bins AS INTEGER), :bins - 1) AS bin, count(*) AS pairs
FROM ({source})
GROUP BY bin
ORDER BY bin;
