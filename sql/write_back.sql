-- Phase 5: annotate `pages` from the run's assignment (temp.run_write, in rowid order), the
-- rows with :lo <= id <= :hi (all of them, or one batch of a large write). {set}, {old} and
-- {new}: the output columns webdedup owns on this table (a crawler's own content_hash is
-- left alone), as `col = w.col`, `pages.col` and `w.col` lists.
-- A row is only written when its annotation changes, and only when its rowid still holds the
-- URL that was prepared (a VACUUM may have renumbered rowids meanwhile).
-- No function call here: SQLite keeps a statement journal (a temporary file as large as the
-- rows rewritten) for a statement that may fail halfway; OR FAIL (a failure keeps the rows
-- already written, and the caller rolls the transaction back) lets it write the rows in place.
-- `+w.id`: the loop walks temp.run_write and seeks each row of {pages} by rowid. Written
-- `{pages}.{rowid} = w.id`, SQLite carried the id range over to {pages} and could scan the
-- whole table under it: every page of a million-page crawl read for a nightly run's few
-- thousand rows (tests/pipeline/test_write_batches.py checks the plan).
UPDATE OR FAIL {pages}
SET {set}
FROM temp.run_write AS w
WHERE {pages}.{rowid} = +w.id AND w.id BETWEEN :lo AND :hi
  AND ({old})
      IS NOT
      ({new})
  AND {pages}.{url} IS w.url;
