import { describe, expect, it } from 'vitest';
import { graphMemoryWarning } from './vector-index.ts';

const MB = 2 ** 20;

describe('graphMemoryWarning', () => {
  it('says nothing while the graphs fit the shared buffers', () => {
    expect(graphMemoryWarning({ graphBytes: 100 * MB, largestBytes: 60 * MB, sharedBuffersBytes: 128 * MB })).toBeUndefined();
    expect(graphMemoryWarning({ graphBytes: 0, largestBytes: 0, sharedBuffersBytes: 128 * MB })).toBeUndefined();
  });

  it('names the sizes and the setting when they do not', () => {
    const warning = graphMemoryWarning({ graphBytes: 2500 * MB, largestBytes: 524 * MB, sharedBuffersBytes: 128 * MB });
    expect(warning).toBe(
      "the tenants' vector graphs take 2500 MB (the largest 524 MB) and shared_buffers is 128 MB: large tenants' searches may wait on the disk after a quiet while; set shared_buffers to at least 1048 MB, better 2500 MB (POSTGRES_SHARED_BUFFERS in docker/compose.yaml)",
    );
  });
});
