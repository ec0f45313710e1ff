-- Each distinct text of the processed pages of the hosts with a duplicate group member, by
-- host (the first time the review app dims a page's chrome in a run: one pass over the
-- prepared rows, then a look-up a host): a page holding it and the URLs that carry it, as
-- webdedup.pipeline.own_content counts a host's lines.
DROP TABLE IF EXISTS temp.review_host_texts;
CREATE TEMP TABLE review_host_texts (
    host TEXT NOT NULL, content_hash TEXT NOT NULL, id INTEGER NOT NULL, urls INTEGER NOT NULL,
    PRIMARY KEY (host, content_hash)
) WITHOUT ROWID;
INSERT INTO temp.review_host_texts
SELECT host, content_hash, min(id), count(DISTINCT url_key)
FROM main._webdedup_prepared
WHERE ignored IS NULL AND content_hash IS NOT NULL
  AND host IN (SELECT host FROM temp.review_members WHERE host IS NOT NULL)
GROUP BY host, content_hash;
