import { describe, expect, it } from 'vitest';
import { expiringMemo } from './memo.ts';

describe('expiringMemo', () => {
  it('shares one call per key until it expires, and forgets a failed call', async () => {
    let clock = 0;
    const calls: string[] = [];
    let fail = false;
    const memo = expiringMemo(
      10,
      60_000,
      async (key: string) => {
        calls.push(key);
        if (fail) throw new Error('down');
        return `${key}:${calls.length}`;
      },
      () => clock,
    );
    const [a, b] = await Promise.all([memo('a'), memo('a')]);
    expect([a, b]).toEqual(['a:1', 'a:1']);
    expect(await memo('b')).toBe('b:2');
    clock = 59_999;
    expect(await memo('a')).toBe('a:1');
    clock = 60_000;
    expect(await memo('a')).toBe('a:3');
    fail = true;
    clock = 200_000;
    await expect(memo('a')).rejects.toThrow('down');
    fail = false;
    expect(await memo('a')).toBe('a:5');
    expect(calls).toEqual(['a', 'b', 'a', 'a', 'a']);
  });

  it('holds at most `max` keys, emptied when full', async () => {
    let n = 0;
    const memo = expiringMemo(2, 60_000, async (key: number) => {
      n++;
      return key;
    });
    await memo(1);
    await memo(2);
    await memo(3);
    await memo(1);
    expect(n).toBe(4);
  });
});
