-- The crawler's table's rows now, without reading it whole (count(*) over a table with no
-- index reads every page, texts included): the pages of the last run's state, plus each page
-- queued since (seq <= :max_seq, this run's queue) that exists now and was not in that state,
-- minus each one queued that was and no longer exists. Exact while every row the crawler adds
-- or deletes is queued (the triggers, REPLACE's deletes included) and rowids stay put (an
-- INTEGER PRIMARY KEY). {pages}, {rowid}: the crawler's table, its rowid alias. {state}: a
-- state table holding a row for every page of the last run's but those queued since (what a
-- queued page's row there is does not matter: the sum corrects it): _webdedup_groups (a row
-- a page: its group, kind, flag and score; 17 MiB at a million pages), else
-- _webdedup_prepared (each row with its URL and keys: 273 MiB, and count(*) reads them all).
SELECT (SELECT count(*) FROM main.{state})
     + coalesce((
           SELECT sum(
                      EXISTS (SELECT 1 FROM main.{pages} AS p WHERE p.{rowid} = c.id)
                    - EXISTS (SELECT 1 FROM main.{state} AS s WHERE s.id = c.id))
           FROM (SELECT DISTINCT id FROM main._webdedup_changes WHERE seq <= :max_seq) AS c
       ), 0);
