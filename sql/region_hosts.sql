-- Every page of the hosts of the changed pages (as stored and as prepared now) joins the
-- region: with n_min a changed page changes its host's page count, and with own content the
-- lines its host repeats. {host_pages}: the stored pages by host
-- (webdedup.store.state.host_pages).
INSERT OR IGNORE INTO temp.run_region (id)
SELECT h.id
FROM (SELECT host FROM main._webdedup_prepared
      WHERE id IN (SELECT id FROM temp.run_changed) AND host IS NOT NULL
      UNION SELECT host FROM temp.run_prepared WHERE host IS NOT NULL) AS c
CROSS JOIN {host_pages} AS h
WHERE h.host = c.host;
