-- The prepared attributes a page was elected on.
SELECT * FROM main._webdedup_prepared WHERE id = :id;
