SELECT {fields} FROM {table} WHERE {rowid} = ?;
