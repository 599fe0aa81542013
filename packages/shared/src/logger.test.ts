import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, resolveLogFormat } from './logger.ts';

function sink() {
  const out = { text: '' };
  const stream = new Writable({
    write(chunk, _enc, done) {
      out.text += chunk.toString();
      done();
    },
  });
  return { out, stream };
}

describe('createLogger', () => {
  it('auto is pretty on a terminal and JSON lines otherwise; LOG_FORMAT forces either', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('writes one JSON object per line by default', () => {
    const { out, stream } = sink();
    createLogger({ destination: stream }).info({ port: 3000 }, 'listening');
    expect(JSON.parse(out.text)).toMatchObject({ level: 30, msg: 'listening', port: 3000 });
  });

  it('pretty: one readable line with the level, the message and the fields, secrets still redacted', () => {
    const { out, stream } = sink();
    createLogger({ destination: stream, format: 'pretty' }).info({ port: 3000, headers: { authorization: 'Bearer s3cret' } }, 'listening');
    const lines = out.text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening \{.*"port":3000/);
    expect(out.text).not.toContain('s3cret');
    expect(out.text).not.toContain('\u001b[');
  });
});
