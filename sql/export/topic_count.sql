-- How many pages topic clusters are made of (see topic_pages.sql).
SELECT count(*) FROM {pages} AS p WHERE p.is_canonical = 1;
