-- The TEMP tables of the report's sections (export/kind_rows.sql, near_pairs_rows.sql),
-- dropped when a section ends, however it ends (some may never have been made).
DROP TABLE IF EXISTS temp.export_kind_members;
DROP TABLE IF EXISTS temp.export_kind_rows;
DROP TABLE IF EXISTS temp.export_pairs_a;
DROP TABLE IF EXISTS temp.export_pairs;
