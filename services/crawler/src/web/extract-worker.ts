// A parse thread of extract-pool.ts: one page's HTML in, what extractPage reads of it out. It says
// when the parse starts (on `started`): the deadline counts the parse, not the thread's start-up.
import type { MessagePort } from 'node:worker_threads';
import { type ExtractedPage, type ExtractOptions, extractPage } from './extract.ts';

export interface ExtractTask {
  html: string;
  url: string;
  options: ExtractOptions;
  started: MessagePort;
}

export default function extract({ html, url, options, started }: ExtractTask): ExtractedPage {
  started.postMessage(null);
  started.close();
  return extractPage(html, url, options);
}
