-- Triggers that queue the rows a REPLACE may delete: INSERT OR REPLACE (a crawler's upsert
-- by URL) and UPDATE OR REPLACE delete the rows holding the new row's UNIQUE key without
-- firing a delete trigger unless the crawler's connection has PRAGMA recursive_triggers on.
-- {insert_lookups}, {update_lookups}: one triggers_replace_lookup.sql a UNIQUE key; {keyed}:
-- the columns of the keys. A row queued that stays (INSERT OR IGNORE) is only prepared again.
CREATE TRIGGER {insert_trigger} BEFORE INSERT ON {table}
BEGIN
{insert_lookups}
END;
CREATE TRIGGER {update_trigger} BEFORE UPDATE OF {keyed} ON {table}
BEGIN
{update_lookups}
END;
