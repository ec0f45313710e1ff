-- Whether the last run processed a page of :host.
SELECT 1 FROM _webdedup_prepared WHERE host = :host AND ignored IS NULL LIMIT 1;
