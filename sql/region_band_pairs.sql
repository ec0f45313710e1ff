-- The band collisions of the changed pages with stored pages, with both SimHashes, for the
-- simhash method to keep only those within the distance (sql/region_bands.sql keeps all).
SELECT DISTINCT s.sketch, m.id, ms.sketch
FROM temp.run_bands AS b
CROSS JOIN main._webdedup_bands AS m
JOIN temp.run_sketches AS s ON s.id = b.id
JOIN main._webdedup_sketches AS ms ON ms.id = m.id
WHERE m.band_key = b.band_key;
