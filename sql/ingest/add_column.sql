ALTER TABLE {table} ADD COLUMN {column} {type};
