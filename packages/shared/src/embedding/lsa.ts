/**
 * Latent semantic vectors learned from one client's own pages (docs/retrieval.md "Related words"):
 * a truncated SVD of the client's tf-idf chunk × lexeme matrix, so words that keep company on this
 * site ("query plan" and EXPLAIN, "reply" and readline) land near each other although a question
 * may use one and the page the other. Offline, no model: the site is the corpus.
 *
 * Randomized range finder (Halko, Martinsson & Tropp 2011) with two power iterations, then the
 * small eigenproblem by Jacobi rotations. Seeded, so the same pages give the same vectors. Cost
 * grows with the matrix's non-zeros × (dimensions + 10): ~2 s for 10,000 chunks on one core.
 */

export interface LsaInput {
  /** Each chunk's lexemes and their occurrence counts (its tsvector). */
  lexemes: string[];
  counts: number[];
}

export interface LsaModel {
  dimensions: number;
  /** Lexeme → idf and its vector (unit length not required: it is a direction in the chunk space). */
  terms: Map<string, { idf: number; vector: Float32Array }>;
  /** One unit vector per input chunk, in input order (all zeros for a chunk with no kept lexeme). */
  chunks: Float32Array[];
}

/**
 * A chunk's lexemes and occurrence counts from its tsvector's text form (`'explain':3,17B 'plan':4`),
 * in the tsvector's own order: read as text and parsed here (in the worker), a 10,000-chunk site's
 * lexemes no longer go through Postgres array aggregation and node-postgres' array parsing on the
 * main thread (~0.5 s). A lexeme's quotes and backslashes are doubled in that form; one without
 * positions (a stripped tsvector) counts once.
 */
export function parseTsvector(text: string): LsaInput {
  const lexemes: string[] = [];
  const counts: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i) !== 39) {
      i++;
      continue;
    }
    const start = ++i;
    let escaped = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        escaped = true;
        i++;
      } else if (c === 39) {
        if (text.charCodeAt(i + 1) !== 39) break;
        escaped = true;
        i++;
      }
    }
    const raw = text.slice(start, i);
    lexemes.push(escaped ? raw.replace(/''|\\(.)/g, (_m, ch: string | undefined) => ch ?? "'") : raw);
    i++;
    let count = 1;
    if (text.charCodeAt(i) === 58) {
      for (i++; i < n && text.charCodeAt(i) !== 32; i++) if (text.charCodeAt(i) === 44) count++;
    }
    counts.push(count);
  }
  return { lexemes, counts };
}

/** Below this many chunks there is too little text to learn related words from. */
export const LSA_MIN_CHUNKS = 100;
export const LSA_DIMENSIONS = 100;
/** Lexemes in fewer chunks than this, or in more than this share of them, carry no topic. */
const MIN_DF = 2;
const MAX_DF_SHARE = 0.3;
const OVERSAMPLING = 10;
const POWER_ITERATIONS = 2;
const JACOBI_SWEEPS = 12;

/** mulberry32: small, seeded, good enough for random projections. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function buildLsa(input: LsaInput[], options: { dimensions?: number; seed?: number } = {}): LsaModel | undefined {
  const n = input.length;
  if (n < LSA_MIN_CHUNKS) return undefined;
  const df = new Map<string, number>();
  for (const c of input) for (const l of c.lexemes) df.set(l, (df.get(l) ?? 0) + 1);
  const vocab = new Map<string, number>();
  for (const [l, d] of df) if (d >= MIN_DF && d <= MAX_DF_SHARE * n) vocab.set(l, vocab.size);
  const m = vocab.size;
  const k = Math.min(options.dimensions ?? LSA_DIMENSIONS, Math.floor(n / 4), Math.floor(m / 4));
  if (k < 2) return undefined;
  const idf = new Float64Array(m);
  for (const [l, j] of vocab) idf[j] = Math.log(n / (df.get(l) as number));

  // The tf-idf matrix, rows L2-normalised, in compressed rows.
  const rowStart = new Int32Array(n + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  input.forEach((c, i) => {
    const start = cols.length;
    let norm = 0;
    c.lexemes.forEach((l, p) => {
      const j = vocab.get(l);
      if (j === undefined) return;
      const w = (1 + Math.log(Math.max(1, c.counts[p] ?? 1))) * (idf[j] as number);
      cols.push(j);
      vals.push(w);
      norm += w * w;
    });
    norm = Math.sqrt(norm) || 1;
    for (let p = start; p < cols.length; p++) vals[p] = (vals[p] as number) / norm;
    rowStart[i + 1] = cols.length;
  });

  const width = k + OVERSAMPLING;
  /** Aᵀ·X (m × width) for X (n × width). */
  const transposeTimes = (x: Float64Array) => {
    const y = new Float64Array(m * width);
    for (let i = 0; i < n; i++) {
      for (let p = rowStart[i] as number; p < (rowStart[i + 1] as number); p++) {
        const j = (cols[p] as number) * width;
        const v = vals[p] as number;
        const xi = i * width;
        for (let c = 0; c < width; c++) y[j + c] = (y[j + c] as number) + v * (x[xi + c] as number);
      }
    }
    return y;
  };
  /** A·X (n × width) for X (m × width). */
  const times = (x: Float64Array) => {
    const y = new Float64Array(n * width);
    for (let i = 0; i < n; i++) {
      const yi = i * width;
      for (let p = rowStart[i] as number; p < (rowStart[i + 1] as number); p++) {
        const j = (cols[p] as number) * width;
        const v = vals[p] as number;
        for (let c = 0; c < width; c++) y[yi + c] = (y[yi + c] as number) + v * (x[j + c] as number);
      }
    }
    return y;
  };

  // Each chunk's row of the random start is drawn from a seed of its own text (its lexemes and counts),
  // not from one stream in input order: the chunks come in no fixed order, and one chunk more (a page
  // added, a footer split off) drew every later row anew — the subspace found, and the latent ranks,
  // moved with it although the pages did not.
  const seed = options.seed ?? 0x5eed;
  const omega = new Float64Array(n * width);
  input.forEach((c, i) => {
    const rand = random(seed ^ textHash(c));
    for (let col = 0; col < width; col++)
      omega[i * width + col] = Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  });
  let q = orthonormalize(transposeTimes(omega), m, width);
  for (let it = 0; it < POWER_ITERATIONS; it++) q = orthonormalize(transposeTimes(orthonormalize(times(q), n, width)), m, width);
  const b = times(q); // n × width: the chunks in the found term subspace

  // Bᵀ·B (width × width): its eigenvectors rotate the subspace onto the singular directions.
  // Symmetric: the upper triangle summed (each entry in the same order as before), then mirrored.
  const g = new Float64Array(width * width);
  for (let r = 0; r < n; r++) {
    for (let a = 0; a < width; a++) {
      const x = b[r * width + a] as number;
      if (x === 0) continue;
      for (let c = a; c < width; c++) g[a * width + c] = (g[a * width + c] as number) + x * (b[r * width + c] as number);
    }
  }
  for (let a = 0; a < width; a++) for (let c = 0; c < a; c++) g[a * width + c] = g[c * width + a] as number;
  const rotation = jacobiEigenvectors(g, width);
  const order = Array.from({ length: width }, (_, i) => i)
    .sort((x, y) => (g[y * width + y] as number) - (g[x * width + x] as number))
    .slice(0, k);

  // The kept eigenvectors as contiguous rows (read in place they were a strided column each).
  const kept = order.map((col) => Float64Array.from({ length: width }, (_, a) => rotation[a * width + col] as number));
  const project = (source: Float64Array, row: number) => {
    const v = new Float32Array(k);
    const base = row * width;
    for (let d = 0; d < k; d++) {
      const e = kept[d] as Float64Array;
      let s = 0;
      for (let a = 0; a < width; a++) s += (source[base + a] as number) * (e[a] as number);
      v[d] = s;
    }
    return v;
  };
  const terms = new Map<string, { idf: number; vector: Float32Array }>();
  for (const [l, j] of vocab) terms.set(l, { idf: idf[j] as number, vector: project(q, j) });
  const chunks = input.map((_, i) => normalize(project(b, i)));
  return { dimensions: k, terms, chunks };
}

/** FNV-1a over a chunk's lexemes and counts. */
function textHash(c: LsaInput): number {
  let h = 0x811c9dc5;
  const mix = (code: number) => {
    h ^= code;
    h = Math.imul(h, 0x01000193);
  };
  c.lexemes.forEach((l, p) => {
    for (let i = 0; i < l.length; i++) mix(l.charCodeAt(i));
    mix(32);
    mix(c.counts[p] ?? 1);
  });
  return h >>> 0;
}

function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  s = Math.sqrt(s);
  if (s > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / s;
  return v;
}

/**
 * Modified Gram-Schmidt on the columns of a rows × cols (row-major) matrix, in place. The columns are
 * copied out to contiguous arrays first: walked in place, every step strode a whole row (880 bytes at
 * 110 columns), and this was over half of a rebuild's time. Same operations in the same order.
 */
function orthonormalize(y: Float64Array, rows: number, cols: number): Float64Array {
  const columns = Array.from({ length: cols }, (_, a) => {
    const col = new Float64Array(rows);
    for (let r = 0; r < rows; r++) col[r] = y[r * cols + a] as number;
    return col;
  });
  for (let a = 0; a < cols; a++) {
    const ya = columns[a] as Float64Array;
    for (let b = 0; b < a; b++) {
      const yb = columns[b] as Float64Array;
      let d = 0;
      for (let r = 0; r < rows; r++) d += (ya[r] as number) * (yb[r] as number);
      for (let r = 0; r < rows; r++) ya[r] = (ya[r] as number) - d * (yb[r] as number);
    }
    let s = 0;
    for (let r = 0; r < rows; r++) s += (ya[r] as number) ** 2;
    s = Math.sqrt(s) || 1;
    for (let r = 0; r < rows; r++) ya[r] = (ya[r] as number) / s;
  }
  for (let a = 0; a < cols; a++) {
    const col = columns[a] as Float64Array;
    for (let r = 0; r < rows; r++) y[r * cols + a] = col[r] as number;
  }
  return y;
}

/** Cyclic Jacobi: diagonalises the symmetric g in place, returns the eigenvectors as columns. */
function jacobiEigenvectors(g: Float64Array, size: number): Float64Array {
  const v = new Float64Array(size * size);
  for (let i = 0; i < size; i++) v[i * size + i] = 1;
  for (let sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
    for (let p = 0; p < size; p++) {
      for (let q = p + 1; q < size; q++) {
        const apq = g[p * size + q] as number;
        if (Math.abs(apq) < 1e-12) continue;
        const theta = ((g[q * size + q] as number) - (g[p * size + p] as number)) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < size; k++) {
          const kp = g[k * size + p] as number;
          const kq = g[k * size + q] as number;
          g[k * size + p] = c * kp - s * kq;
          g[k * size + q] = s * kp + c * kq;
        }
        for (let k = 0; k < size; k++) {
          const pk = g[p * size + k] as number;
          const qk = g[q * size + k] as number;
          g[p * size + k] = c * pk - s * qk;
          g[q * size + k] = s * pk + c * qk;
        }
        for (let k = 0; k < size; k++) {
          const kp = v[k * size + p] as number;
          const kq = v[k * size + q] as number;
          v[k * size + p] = c * kp - s * kq;
          v[k * size + q] = s * kp + c * kq;
        }
      }
    }
  }
  return v;
}
