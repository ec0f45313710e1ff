-- `webdedup db --assignments`: does the Daft run's output (temp.run_prepared) describe this
-- table? Pages it lacks, ids the table lacks, and rows whose URL is not the one prepared.
SELECT (SELECT count(*) FROM {pages}
        WHERE {rowid} NOT IN (SELECT id FROM temp.run_prepared)) AS missing,
       (SELECT count(*) FROM temp.run_prepared
        WHERE id NOT IN (SELECT {rowid} FROM {pages})) AS extra,
       (SELECT count(*) FROM temp.run_prepared AS r JOIN {pages} AS p ON p.{rowid} = r.id
        -- TEXT as a BLOB: sqlite3 decodes the TEXT arguments of a function strictly
        WHERE webdedup_url_hash(CASE typeof(p.{url}) WHEN 'text' THEN CAST(p.{url} AS BLOB)
                                ELSE p.{url} END) <> r.url_hash) AS moved;
