-- Schema version 13: each annotated page's dup_score beside its group (issue 33). The review
-- app builds its index of the groups and its queue from the state (_webdedup_groups and
-- _webdedup_prepared), not from `pages`: reading every group member's row of the crawler's
-- table (texts included) took 23 s at three million pages. Written with the groups, by full
-- runs and by an incremental run's region; an upgraded database gets the scores from `pages`
-- once (webdedup.store.migrations).
ALTER TABLE _webdedup_groups ADD COLUMN dup_score REAL;
