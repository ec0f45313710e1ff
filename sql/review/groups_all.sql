-- One page of all the duplicate groups, largest first: review/groups.sql with no filter set,
-- read from the index on size without counting every group each time (`total` is :total,
-- the groups' count the app kept when it built temp.review_groups).
SELECT dup_group, size, :total AS total
FROM temp.review_groups
ORDER BY size DESC, dup_group
LIMIT :limit OFFSET :offset;
