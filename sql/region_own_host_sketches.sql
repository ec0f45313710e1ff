-- Own content, a nightly run: the stored sketches of the unchanged pages that joined the
-- region with their host (region_hosts.sql; the region holds only those and the changed
-- pages then), whose own texts may change with the host's repeated lines; the region then
-- takes in the stored pages their band keys meet.
SELECT id, sketch FROM main._webdedup_sketches
WHERE id IN (SELECT id FROM temp.run_region)
  AND id NOT IN (SELECT id FROM temp.run_changed)
ORDER BY id;
