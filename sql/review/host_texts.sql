-- Up to :limit distinct texts of the processed pages of one :host (the review app dims the
-- lines a host repeats): a page holding each and the URLs that carry it, as
-- webdedup.pipeline.own_content counts a host's lines. The host's pages come from
-- {host_pages} (main._webdedup_hosts, by host), so a look-up costs the host's pages, not a
-- pass over every prepared row.
SELECT min(p.id) AS id, count(DISTINCT p.url_key) AS urls
FROM {host_pages} AS h
JOIN main._webdedup_prepared AS p ON p.id = h.id
WHERE h.host = :host AND p.ignored IS NULL AND p.content_hash IS NOT NULL
GROUP BY p.content_hash
ORDER BY p.content_hash
LIMIT :limit;
