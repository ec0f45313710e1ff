-- Triggers that queue changed page ids for the next incremental run. They fire on inserts,
-- deletes and on updates of the input columns only ({columns}), never of webdedup's own
-- output columns, so a write-back queues nothing.
DROP TRIGGER IF EXISTS {insert_trigger};
CREATE TRIGGER {insert_trigger} AFTER INSERT ON {table}
BEGIN
    INSERT INTO _webdedup_changes (id, op) VALUES (NEW.{rowid}, 'insert');
END;
DROP TRIGGER IF EXISTS {delete_trigger};
CREATE TRIGGER {delete_trigger} AFTER DELETE ON {table}
BEGIN
    INSERT INTO _webdedup_changes (id, op) VALUES (OLD.{rowid}, 'delete');
END;
DROP TRIGGER IF EXISTS {update_trigger};
CREATE TRIGGER {update_trigger} AFTER UPDATE OF {columns} ON {table}
BEGIN
    INSERT INTO _webdedup_changes (id, op) VALUES (OLD.{rowid}, 'update');
    INSERT INTO _webdedup_changes (id, op)
    SELECT NEW.{rowid}, 'update' WHERE NEW.{rowid} <> OLD.{rowid};
END;
