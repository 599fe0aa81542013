import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { isFinalAttempt } from './attempts.ts';

describe('isFinalAttempt', () => {
  const job = (attemptsMade: number, attempts?: number) => ({ attemptsMade, opts: attempts === undefined ? {} : { attempts } });

  it('inside a processor, the running attempt is attemptsMade + 1', () => {
    expect(isFinalAttempt(job(0, 3))).toBe(false);
    expect(isFinalAttempt(job(1, 3))).toBe(false);
    expect(isFinalAttempt(job(2, 3))).toBe(true);
  });

  it("in a 'failed' listener the attempt is already counted", () => {
    expect(isFinalAttempt(job(2, 3), new Error('x'), { counted: true })).toBe(false);
    expect(isFinalAttempt(job(3, 3), new Error('x'), { counted: true })).toBe(true);
  });

  it('an UnrecoverableError is final whatever the attempts left; no attempts option means one', () => {
    expect(isFinalAttempt(job(0, 5), new UnrecoverableError('no'))).toBe(true);
    expect(isFinalAttempt(job(0))).toBe(true);
  });
});
