/**
 * `fn` with its results remembered by key, at most `max` of them: when full, the memory is emptied
 * and refills with what is asked next (cheaper than tracking recency, and the hot keys come back at
 * once). For pure functions of small vocabularies: stems, WordNet lookups, analysed texts.
 */
export function boundedMemo<K, V>(max: number, fn: (key: K) => V): (key: K) => V {
  const memory = new Map<K, V>();
  return (key) => {
    let value = memory.get(key);
    if (value === undefined) {
      value = fn(key);
      if (memory.size >= max) memory.clear();
      memory.set(key, value);
    }
    return value;
  };
}

/**
 * An async `fn` with its results remembered by key for `ttlMs`, at most `max` keys (emptied when full, as
 * boundedMemo): concurrent callers of a key share one call, and a failed call is forgotten at once. For
 * a client's derived data that costs a scan and may be a little stale (the price list: a minute).
 */
export function expiringMemo<K, V>(
  max: number,
  ttlMs: number,
  fn: (key: K) => Promise<V>,
  now: () => number = Date.now,
): (key: K) => Promise<V> {
  const memory = new Map<K, { at: number; value: Promise<V> }>();
  return (key) => {
    const kept = memory.get(key);
    if (kept && now() - kept.at < ttlMs) return kept.value;
    const value = fn(key);
    if (memory.size >= max) memory.clear();
    const entry = { at: now(), value };
    memory.set(key, entry);
    value.catch(() => {
      if (memory.get(key) === entry) memory.delete(key);
    });
    return value;
  };
}
