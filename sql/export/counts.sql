-- Whole-table counts for the report's meta (unfiltered).
SELECT count(*)                                                   AS pages,
       coalesce(sum(is_canonical IS NOT NULL OR dup_kind = 'ignored'), 0) AS annotated,
       coalesce(sum(is_canonical = 1), 0)                         AS groups,
       coalesce(sum(is_canonical = 1 AND dup_group_size > 1), 0)  AS duplicate_groups,
       coalesce(sum(dup_kind = 'url'), 0)                         AS url_duplicates,
       coalesce(sum(dup_kind = 'exact'), 0)                       AS exact_duplicates,
       coalesce(sum(dup_kind = 'near'), 0)                        AS near_duplicates,
       coalesce(sum(dup_kind = 'ignored'), 0)                     AS ignored,
       (SELECT count(*) FROM main._webdedup_edges)                AS near_pairs
FROM {pages};
