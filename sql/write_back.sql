-- Phase 5: annotate `pages` from the run's assignment (temp.run_write, in rowid order), the
-- rows with :lo <= id <= :hi (all of them, or one batch of a large write).
-- A row is only written when its annotation changes, and only when its rowid still holds the
-- URL that was prepared (a VACUUM may have renumbered rowids meanwhile).
-- No function call here: SQLite keeps a statement journal (a temporary file as large as the
-- rows rewritten) for a statement that may fail halfway; OR FAIL (a failure keeps the rows
-- already written, and the caller rolls the transaction back) lets it write the rows in place.
-- `+w.id`: the loop walks temp.run_write and seeks each row of {pages} by rowid. Written
-- `{pages}.{rowid} = w.id`, SQLite carried the id range over to {pages} and could scan the
-- whole table under it: every page of a million-page crawl read for a nightly run's few
-- thousand rows (tests/test_write_batches.py checks the plan).
UPDATE OR FAIL {pages}
SET canonical_url    = w.canonical_url,
    content_hash     = w.content_hash,
    exact_group_size = w.exact_group_size,
    dup_group        = w.dup_group,
    dup_group_size   = w.dup_group_size,
    canonical_id     = w.canonical_id,
    is_canonical     = w.is_canonical,
    dup_kind         = w.dup_kind,
    dup_score        = w.dup_score
FROM temp.run_write AS w
WHERE {pages}.{rowid} = +w.id AND w.id BETWEEN :lo AND :hi
  AND ({pages}.canonical_url, {pages}.content_hash, {pages}.exact_group_size,
       {pages}.dup_group, {pages}.dup_group_size, {pages}.canonical_id, {pages}.is_canonical,
       {pages}.dup_kind, {pages}.dup_score)
      IS NOT
      (w.canonical_url, w.content_hash, w.exact_group_size, w.dup_group, w.dup_group_size,
       w.canonical_id, w.is_canonical, w.dup_kind, w.dup_score)
  AND {pages}.{url} IS w.url;
