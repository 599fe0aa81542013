// Runs buildLsa off the main thread (db/lsa.ts): seconds of CPU for a large site would otherwise stall
// every other job and request of the process (pnpm start runs the gateway, crawler and embedder in one).
import { parentPort, workerData } from 'node:worker_threads';
import { buildLsa, parseTsvector } from './lsa.ts';

parentPort?.postMessage(buildLsa((workerData as { tsvectors: string[] }).tsvectors.map(parseTsvector)) ?? null);
