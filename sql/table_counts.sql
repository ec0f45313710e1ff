-- Totals over the whole annotated table, for the run summary and the runs table.
SELECT coalesce(sum(dup_kind = 'ignored'), 0),
       coalesce(sum(dup_kind = 'url'), 0),
       coalesce(sum(dup_kind = 'exact'), 0),
       coalesce(sum(dup_kind = 'near'), 0),
       count(DISTINCT dup_group)
FROM {pages};
