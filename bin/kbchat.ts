#!/usr/bin/env node
// `pnpm start`: gateway, crawler and embedder in one process (RUN=gateway|crawler|embedder picks).
import { startCrawler } from '@kbchat/crawler/main';
import { startEmbedder } from '@kbchat/embedder/main';
import { startGateway } from '@kbchat/gateway/main';
import { runMain } from '@kbchat/shared/lifecycle';

await runMain({ gateway: startGateway, crawler: startCrawler, embedder: startEmbedder });
