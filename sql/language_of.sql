-- The language guard (webdedup/pipeline/language_guard.py): the detected language of the
-- pages of this run's near-duplicate edges. :ids is a JSON array of page ids.
SELECT id, lang, lang_score FROM temp.run_prepared
WHERE id IN (SELECT value FROM json_each(:ids)) AND lang IS NOT NULL;
