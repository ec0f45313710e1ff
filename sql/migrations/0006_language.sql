-- Schema version 6: each page's language (issue 16). `lang` is the crawler's own language
-- column when it has one, else what py3langid detects (NULL: too little text, or the `lang`
-- extra not installed); `lang_score` the detection's probability (1.0 for the crawler's
-- value). Appended, so that temp.run_prepared (sql/run_tables.sql) keeps the same columns
-- in the same order. Rows stored before have NULLs until the next run, which is a full
-- one: the "language" shaping parameter is new.
ALTER TABLE _webdedup_prepared ADD COLUMN lang TEXT;
ALTER TABLE _webdedup_prepared ADD COLUMN lang_score REAL;
