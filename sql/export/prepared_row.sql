-- The prepared attributes a page was elected on.
SELECT * FROM main._prepared WHERE id = :id;
