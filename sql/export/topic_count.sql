-- How many pages topic clusters are made of (see topic_pages.sql).
SELECT count(*) FROM main._webdedup_group_members WHERE is_canonical = 1;
