-- The members of the groups of one kind (:kind), each with the cells the report lists, into
-- temp.export_kind_rows, for export/kind_groups.sql to read group by group. {groups} is
-- sql/group_kinds.sql (the one definition of a group and its kind, see
-- webdedup/store/counts.py); {title}: p's title or NULL. :min_size (NULL = off) keeps groups
-- of at least that many pages.
-- The members are found by group (_webdedup_group_members) and sorted by id first, so
-- the crawler's table is read in rowid order: read group by group, each member was a look-up
-- at a random place of the table, and at ten million pages (a table larger than the page
-- cache) that made `export --json` take 4,294 s against 19.7 s at a million
-- (docs/benchmarks.md). A row renumbered by VACUUM carries another group: left out.
DROP TABLE IF EXISTS temp.export_kind_members;
CREATE TEMP TABLE export_kind_members (id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL,
                                       size INTEGER NOT NULL);
INSERT INTO temp.export_kind_members (id, dup_group, size)
SELECT a.id, g.dup_group, g.size
FROM ({groups}) AS g
JOIN main._webdedup_group_members AS a ON a.dup_group = g.dup_group
WHERE g.kind = :kind
  AND (:min_size IS NULL OR g.size >= :min_size)
ORDER BY a.id;
DROP TABLE IF EXISTS temp.export_kind_rows;
CREATE TEMP TABLE export_kind_rows (dup_group, size, id, is_canonical, content_hash,
                                    canonical_url, title);
INSERT INTO temp.export_kind_rows
SELECT m.dup_group, m.size, p.{rowid}, p.is_canonical, {content_hash}, p.canonical_url, {title}
FROM temp.export_kind_members AS m
CROSS JOIN {pages} AS p
WHERE p.{rowid} = m.id AND p.dup_group = m.dup_group;
DROP TABLE temp.export_kind_members;
