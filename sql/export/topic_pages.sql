-- The texts topic clusters are made of: the canonical pages of the last run (one a duplicate
-- group; ignored pages and pages added since have no is_canonical), in id order.
-- {text} and {html} as in review_groups.sql ({html} only where the text is empty).
SELECT p.{rowid} AS id,
       {text}    AS text,
       {html}    AS html
FROM {pages} AS p
WHERE p.is_canonical = 1
ORDER BY p.{rowid};
