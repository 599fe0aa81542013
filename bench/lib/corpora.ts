// The real sites the retrieval bench crawls: Debian documentation packages served on loopback,
// each with a question set (bench/eval/, ../shared/eval). Nothing here is tuned for one of them.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CORPORA, REPO_ROOT } from './env.ts';

export interface Question {
  id: string;
  question: string;
  expected: string[];
  follows: string | null;
  kind: string;
  /** Phrases of which a correct answer contains at least one (case-insensitive). */
  answer?: string[];
}

export interface Corpus {
  name: string;
  /** Folder served as the site's root. */
  dir: string;
  /** Start page, relative to dir. */
  start: string;
  questionsFile: string;
  /** Debian package that holds it. */
  pkg: string;
}

const EVAL = path.join(REPO_ROOT, 'bench/eval');
const SHARED_EVAL = path.resolve(REPO_ROOT, '../shared/eval');

/** The bench's copy (with answer phrases) when there, else the shared set. */
function questionsPath(file: string): string {
  const own = path.join(EVAL, file);
  return existsSync(own) ? own : path.join(SHARED_EVAL, file);
}

export const CORPUS_LIST: Corpus[] = [
  {
    name: 'nodejs',
    dir: `${CORPORA}/usr/share/doc/nodejs/api`,
    start: 'index.html',
    questionsFile: questionsPath('nodejs-api-questions.json'),
    pkg: 'nodejs-doc',
  },
  {
    name: 'django',
    dir: `${CORPORA}/usr/share/doc/python-django-doc/html`,
    start: 'index.html',
    questionsFile: questionsPath('django-questions.json'),
    pkg: 'python-django-doc',
  },
  {
    name: 'postgres',
    dir: `${CORPORA}/usr/share/doc/postgresql-doc-15/html`,
    start: 'index.html',
    questionsFile: questionsPath('postgres-visitor-questions.json'),
    pkg: 'postgresql-doc-15',
  },
  {
    name: 'git',
    dir: `${CORPORA}/usr/share/doc/git-doc`,
    start: 'index.html',
    questionsFile: questionsPath('git-questions.json'),
    pkg: 'git-doc',
  },
  {
    name: 'sqlite',
    dir: `${CORPORA}/usr/share/doc/sqlite3`,
    start: 'index.html',
    questionsFile: questionsPath('sqlite-questions.json'),
    pkg: 'sqlite3-doc',
  },
  {
    name: 'python',
    dir: `${CORPORA}/usr/share/doc/python3.11/html`,
    start: 'index.html',
    questionsFile: questionsPath('python-questions.json'),
    pkg: 'python3.11-doc',
  },
  {
    name: 'apache',
    dir: `${CORPORA}/usr/share/doc/apache2-doc/manual/en`,
    start: 'index.html',
    questionsFile: questionsPath('apache-questions.json'),
    pkg: 'apache2-doc',
  },
  {
    name: 'sphinx',
    dir: `${CORPORA}/usr/share/doc/sphinx-doc/html`,
    start: 'index.html',
    questionsFile: questionsPath('sphinx-questions.json'),
    pkg: 'sphinx-doc',
  },
  {
    name: 'zsh',
    dir: `${CORPORA}/usr/share/doc/zsh-doc/html`,
    start: 'index.html',
    questionsFile: questionsPath('zsh-questions.json'),
    pkg: 'zsh-doc',
  },
  {
    name: 'postfix',
    dir: `${CORPORA}/usr/share/doc/postfix/html`,
    start: 'index.html',
    questionsFile: questionsPath('postfix-questions.json'),
    pkg: 'postfix-doc',
  },
  {
    name: 'handbook',
    dir: `${CORPORA}/usr/share/doc/debian-handbook/html/en-US`,
    start: 'index.html',
    questionsFile: questionsPath('debian-handbook-questions.json'),
    pkg: 'debian-handbook',
  },
  {
    name: 'gnucash',
    dir: `${CORPORA}/usr/share/doc/gnucash-docs/gnucash-guide-en`,
    start: 'index.html',
    questionsFile: questionsPath('gnucash-questions.json'),
    pkg: 'gnucash-docs',
  },
  {
    name: 'exim',
    dir: `${CORPORA}/usr/share/doc/exim4-doc-html/spec_html`,
    start: 'index.html',
    questionsFile: questionsPath('exim-questions.json'),
    pkg: 'exim4-doc-html',
  },
  {
    name: 'jmeter',
    dir: `${CORPORA}/usr/share/jmeter/printable_docs`,
    start: 'index.html',
    questionsFile: questionsPath('jmeter-questions.json'),
    pkg: 'jmeter-help',
  },
  {
    name: 'lirc',
    dir: `${CORPORA}/usr/share/doc/lirc/lirc.org`,
    start: 'index.html',
    questionsFile: questionsPath('lirc-questions.json'),
    pkg: 'lirc-doc',
  },
  {
    name: 'debfaq',
    dir: `${CORPORA}/usr/share/doc/debian/FAQ`,
    start: 'index.html',
    questionsFile: questionsPath('debian-faq-questions.json'),
    pkg: 'debian-faq',
  },
  {
    name: 'aptitude',
    dir: `${CORPORA}/usr/share/doc/aptitude/html/en`,
    start: 'index.html',
    questionsFile: questionsPath('aptitude-questions.json'),
    pkg: 'aptitude-doc-en',
  },
];

export function loadQuestions(corpus: Corpus): Question[] {
  return (JSON.parse(readFileSync(corpus.questionsFile, 'utf8')) as { questions: Question[] }).questions;
}

/** A source URL's page relative to the corpus root ("topics/db/queries.html"); a directory is its index.html. */
export function pageOf(url: string, siteUrl?: string): string {
  let p = new URL(url).pathname;
  if (siteUrl) {
    const root = new URL(siteUrl).pathname.replace(/\/$/, '');
    if (p.startsWith(root)) p = p.slice(root.length);
  }
  p = decodeURIComponent(p.replace(/^\//, ''));
  if (p === '' || p.endsWith('/')) return `${p}index.html`;
  // The crawler files a directory's index.html under the directory's URL.
  return (p.split('/').at(-1) ?? '').includes('.') ? p : `${p}/index.html`;
}

/**
 * Pages that repeat or list every other page: never a hit, left out of the ranking (the eval
 * README: all.html and index pages count as a duplicate of every page).
 */
export function isIndexPage(page: string): boolean {
  const base = page.split('/').at(-1) ?? page;
  return (
    base === 'all.html' ||
    base.startsWith('genindex') ||
    base === 'py-modindex.html' ||
    base === 'search.html' ||
    // GNU Texinfo's indexes and table of contents ("Concept-Index.html", "zsh_toc.html").
    base.endsWith('-Index.html') ||
    base.endsWith('_toc.html') ||
    (base === 'index.html' && !page.includes('/'))
  );
}
