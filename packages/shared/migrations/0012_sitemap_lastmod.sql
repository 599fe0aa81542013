-- Up Migration
-- A re-crawl skips a page whose sitemap <lastmod> is what it was when the page was last stored
-- (docs/crawling.md "Re-crawls, scope and changes"): the frontier keeps the sitemap's value for the
-- URL, the page keeps the value its stored content was fetched under.
ALTER TABLE crawl_urls ADD COLUMN lastmod text;
ALTER TABLE pages ADD COLUMN sitemap_lastmod text;
