-- Content hashes shared by more than one URL group. A URL group (one canonical URL) may hold
-- several texts (re-crawls); any text it shares with another URL group links the two. Texts
-- of losing captures only link when they are long enough to judge (:min_words), so a short
-- error or cookie page re-crawled under two URLs never joins them. Only the texts two pages
-- or more hold are looked at (run_content_hashes, in hash order: lookup_keys.sql).
SELECT content_hash, group_concat(winner)
FROM (SELECT DISTINCT p.content_hash, u.url_winner AS winner
      FROM temp.run_prepared AS p
      JOIN temp.run_url_election AS u ON u.id = p.id
      WHERE (u.url_winner = p.id OR p.word_count >= :min_words)
        AND p.content_hash IN (SELECT content_hash FROM temp.run_content_hashes
                               GROUP BY content_hash HAVING count(*) > 1))
GROUP BY content_hash
HAVING count(*) > 1;
