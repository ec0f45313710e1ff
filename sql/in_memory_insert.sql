INSERT INTO pages (rowid, url, content, html, title, datetime, crawled, category, lang)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?);
