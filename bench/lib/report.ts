// The shape every part returns, and the files `pnpm bench` writes from them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type machine, REPO_ROOT } from './env.ts';

export interface Row {
  /** What is measured, e.g. "pages/s (concurrency 8)". */
  metric: string;
  ours: number | string;
  baseline?: number | string;
  /** ours / baseline where a ratio means something (higher is better unless lowerIsBetter). */
  ratio?: number;
  target?: string;
  pass?: boolean;
}

export interface PartResult {
  part: string;
  title: string;
  /** What "ours" and "baseline" are in this part's rows. */
  oursLabel: string;
  baselineLabel: string;
  rows: Row[];
  notes: string[];
  details: Record<string, unknown>;
}

export interface StoredPart extends PartResult {
  measuredAt: string;
  seconds: number;
  /** Load average (1, 5, 15 min) when the part started and when it ended. */
  loadAtStart: number[];
  loadAtEnd: number[];
}

export interface BenchResults {
  machine: ReturnType<typeof machine>;
  updatedAt: string;
  parts: Record<string, StoredPart>;
}

export const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');

export function loadResults(): BenchResults | undefined {
  const file = path.join(RESULTS_DIR, 'latest.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  } catch {
    return undefined;
  }
}

export function ratio(ours: number, baseline: number, digits = 2): number {
  if (!Number.isFinite(ours) || !Number.isFinite(baseline) || baseline === 0) return Number.NaN;
  return +(ours / baseline).toFixed(digits);
}

const fmt = (v: number | string | undefined): string =>
  v === undefined ? '' : typeof v === 'number' ? (Number.isNaN(v) ? 'n/a' : String(v)) : v;

export function toMarkdown(results: BenchResults, order: string[]): string {
  const m = results.machine;
  const lines: string[] = [
    '# kbchat benchmarks',
    '',
    `Machine: ${m.cpus}, ${m.memoryGb} GB RAM, ${m.os}, Node ${m.node}. Updated ${results.updatedAt}.`,
    'Every ratio compares ours with a baseline measured in the same run of that part on this machine.',
    '',
  ];
  for (const name of order) {
    const p = results.parts[name];
    if (!p) continue;
    lines.push(`## ${p.title}`, '');
    lines.push(
      `Measured ${p.measuredAt} in ${Math.round(p.seconds)} s; load average ${p.loadAtStart.join(' / ')} at the start, ${p.loadAtEnd.join(' / ')} at the end.`,
      `Ours: ${p.oursLabel}. Baseline: ${p.baselineLabel}.`,
      '',
      '| metric | ours | baseline | ratio | target | met |',
      '|---|---|---|---|---|---|',
    );
    for (const r of p.rows) {
      const met = r.pass === undefined ? '' : r.pass ? 'yes' : '**no**';
      lines.push(`| ${r.metric} | ${fmt(r.ours)} | ${fmt(r.baseline)} | ${fmt(r.ratio)} | ${r.target ?? ''} | ${met} |`);
    }
    if (p.notes.length > 0) lines.push('', ...p.notes.map((n) => `- ${n}`));
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

export function writeResults(results: BenchResults, order: string[]): { json: string; md: string } {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = path.join(RESULTS_DIR, 'latest.json');
  const md = path.join(RESULTS_DIR, 'latest.md');
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(md, toMarkdown(results, order));
  return { json, md };
}
