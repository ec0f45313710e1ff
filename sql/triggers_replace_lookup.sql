-- The rows holding the new row's value of one UNIQUE key: {match} compares each column with
-- the index's collation, {partial} adds a partial index's WHERE (so the lookup uses the index),
-- {other} leaves out the row being updated.
    INSERT INTO _webdedup_changes (id, op)
    SELECT {rowid}, 'delete' FROM {table} WHERE {match}{partial}{other};
