-- Up Migration
-- One crawl per source at a time (docs/crawling.md "One crawl per source"): a crawl requested while
-- another of the same source is unfinished joins it. startCrawlJob looks for that crawl under the
-- source row's lock; this index is the guarantee behind it. Databases that already hold two
-- unfinished crawls of one source keep the newest and fail the others, which could only have
-- deleted each other's pages.
UPDATE jobs j SET status = 'failed', phase = 'done', finished_at = now(), updated_at = now(),
       error = 'superseded: another crawl of this source was running',
       message = 'Superseded by another crawl of the same source.'
 WHERE j.kind = 'crawl' AND j.status IN ('queued', 'active') AND j.source_id IS NOT NULL
   AND EXISTS (SELECT 1 FROM jobs n
                WHERE n.source_id = j.source_id AND n.kind = 'crawl' AND n.status IN ('queued', 'active')
                  AND (n.created_at, n.id) > (j.created_at, j.id));

CREATE UNIQUE INDEX jobs_one_unfinished_crawl_per_source ON jobs (source_id)
  WHERE kind = 'crawl' AND status IN ('queued', 'active');
