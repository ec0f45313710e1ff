-- One page of the duplicate groups that pass the filters, largest first; `total` is how many
-- pass. Each filter is NULL when not set. :q is a LIKE pattern (escape \) matched against
-- every member's URL and title ({search}: temp.review_search, review/search_build.sql, built
-- by the first search of a run); :kind (main._webdedup_group_kinds) matches any member;
-- :host too, through the groups of {groups}: temp.review_groups, or with a host filter only
-- the groups with a member on that host (review/host_groups.sql, made for the request: the
-- query goes through them alone); :min_size/:max_size the group's size; :min_score/
-- :max_score its lowest member score (temp.review_scores: review/members_build.sql); :lang
-- its canonical's language (temp.review_langs: review/langs_build.sql). The app builds
-- those parts first.
SELECT g.dup_group, g.size, count(*) OVER () AS total
FROM {groups} AS g
WHERE (:min_size IS NULL OR g.size >= :min_size)
  AND (:max_size IS NULL OR g.size <= :max_size)
  AND (:min_score IS NULL OR EXISTS (SELECT 1 FROM temp.review_scores AS s
                                     WHERE s.dup_group = g.dup_group
                                       AND s.min_score >= :min_score))
  AND (:max_score IS NULL OR EXISTS (SELECT 1 FROM temp.review_scores AS s
                                     WHERE s.dup_group = g.dup_group
                                       AND s.min_score <= :max_score))
  AND (:lang IS NULL OR EXISTS (SELECT 1 FROM temp.review_langs AS l
                                WHERE l.dup_group = g.dup_group AND l.lang = :lang))
  AND (:kind IS NULL OR EXISTS (SELECT 1 FROM main._webdedup_group_kinds AS k
                                WHERE k.dup_kind = :kind AND k.dup_group = g.dup_group))
  AND (:q IS NULL OR EXISTS (SELECT 1 FROM {search} AS m
                             WHERE m.dup_group = g.dup_group
                               AND (m.url LIKE :q ESCAPE '\' OR m.title LIKE :q ESCAPE '\')))
ORDER BY g.size DESC, g.dup_group
LIMIT :limit OFFSET :offset;
