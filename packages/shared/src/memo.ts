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
