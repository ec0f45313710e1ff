-- run_on_list: the pages of a list, under webdedup's own column names (no type affinity:
-- values stay as given). The rowid is the page's id.
CREATE TABLE pages (url, content, html, title, datetime, crawled, category, lang);
