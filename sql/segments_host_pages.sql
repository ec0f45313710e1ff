-- The processed pages of each host named in :hosts (a JSON array): a repeated segment's
-- share of its host.
SELECT host, count(*) FROM _webdedup_prepared
WHERE ignored IS NULL AND host IN (SELECT value FROM json_each(:hosts))
GROUP BY host;
