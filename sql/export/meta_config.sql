-- The configuration (JSON) of the last run, with its column mapping and election order.
SELECT value FROM main._webdedup_meta WHERE key = 'config';
