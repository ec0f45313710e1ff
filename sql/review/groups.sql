-- One page of the duplicate groups that pass the filters, largest first; `total` is how many
-- pass. Each filter is NULL when not set. :q is a LIKE pattern (escape \) matched against
-- every member's URL and title ({search}: temp.review_search, review/search_build.sql, built
-- by the first search of a run); :kind and :host match any member; :min_size/:max_size the
-- group's size; :min_score/:max_score its lowest member score; :lang its canonical's language.
SELECT g.dup_group, g.size, g.canonical, g.min_score, count(*) OVER () AS total
FROM temp.review_groups AS g
WHERE (:min_size IS NULL OR g.size >= :min_size)
  AND (:max_size IS NULL OR g.size <= :max_size)
  AND (:min_score IS NULL OR g.min_score >= :min_score)
  AND (:max_score IS NULL OR g.min_score <= :max_score)
  AND (:lang IS NULL OR g.lang = :lang)
  AND (:kind IS NULL OR EXISTS (SELECT 1 FROM temp.review_members AS m
                                WHERE m.dup_group = g.dup_group AND m.dup_kind = :kind))
  AND (:host IS NULL OR EXISTS (SELECT 1 FROM temp.review_members AS m
                                WHERE m.dup_group = g.dup_group AND m.host = :host))
  AND (:q IS NULL OR EXISTS (SELECT 1 FROM {search} AS m
                             WHERE m.dup_group = g.dup_group
                               AND (m.url LIKE :q ESCAPE '\' OR m.title LIKE :q ESCAPE '\')))
ORDER BY g.size DESC, g.dup_group
LIMIT :limit OFFSET :offset;
