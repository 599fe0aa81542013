import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, configKeys, describeConfig, loadConfig, resolvedProviders } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults with no environment at all', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.RUN).toEqual(['gateway', 'crawler', 'embedder']);
    expect(c.MAX_PAGES_DEFAULT).toBe(50);
    expect(c.CHAT_RATE_LIMIT_PER_MINUTE).toBe(60);
    expect(c.OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(resolvedProviders(c)).toEqual({ chat: 'extractive', embedding: 'local' });
  });

  it('coerces and validates values', () => {
    const c = loadConfig({ PORT: '8080', RUN: 'gateway, embedder', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_URL: '' });
    expect(c.PORT).toBe(8080);
    expect(c.RUN).toEqual(['gateway', 'embedder']);
    expect(c.OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBe(true);
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RUN', 'gateway,web'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['OUTBOUND_ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['ADMIN_API_KEY', 'short'],
    ['ADMIN_API_KEY', ' leading-space-admin-key-0123456789'],
    ['ADMIN_API_KEY', 'trailing-space-admin-key-0123456789 '],
    ['ADMIN_API_KEY', 'trailing-newline-admin-key-0123456789\n'],
    ['ADMIN_API_KEY', 'a'.repeat(32)],
    ['ADMIN_API_KEY', 'abab'.repeat(8)],
    ['ADMIN_API_KEY', 'clé-d’administration-0123456789'],
    ['ADMIN_AUTH_FAILURES_PER_MINUTE', '0'],
    ['HTTP_HEADERS_TIMEOUT_MS', '40000'],
    ['HTTP_CONNECTION_TIMEOUT_MS', '60000'],
    ['MAX_PAGES_LIMIT', '0'],
  ])('a bad %s=%s stops the start with a message naming it', (key, value) => {
    let error: unknown;
    try {
      loadConfig({ [key]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.some((i) => i.startsWith(`${key} `))).toBe(true);
    expect((error as ConfigError).message).toContain(key);
  });

  it('says why an admin key that could never match, or is guessable, is refused', () => {
    const issues = (value: string) => {
      try {
        loadConfig({ ADMIN_API_KEY: value });
        return [];
      } catch (err) {
        return (err as ConfigError).issues;
      }
    };
    expect(issues(' padded-admin-key-0123456789 ')).toEqual([
      'ADMIN_API_KEY must not start or end with whitespace (the Authorization header is trimmed) (got <redacted>)',
    ]);
    expect(issues('x'.repeat(40))).toEqual([
      'ADMIN_API_KEY must have at least 5 different characters (e.g. openssl rand -hex 32) (got <redacted>)',
    ]);
    // A key with inner spaces or of 5 different characters is fine.
    expect(issues('correct horse battery staple')).toEqual([]);
    expect(loadConfig({ ADMIN_API_KEY: 'abcde'.repeat(4) }).ADMIN_API_KEY).toBe('abcde'.repeat(4));
    // Whitespace only is "unset", as for every optional variable: loopback callers only.
    expect(loadConfig({ ADMIN_API_KEY: '   ' }).ADMIN_API_KEY).toBeUndefined();
  });

  it('never echoes a secret value in its error', () => {
    const err = (() => {
      try {
        loadConfig({ ADMIN_API_KEY: 'tiny' });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err?.message).toContain('ADMIN_API_KEY');
    expect(err?.message).not.toContain('tiny');
  });

  it('refuses openai providers without a key', () => {
    expect(() => loadConfig({ CHAT_PROVIDER: 'openai' })).toThrow(/CHAT_PROVIDER/);
    expect(resolvedProviders(loadConfig({ OPENAI_API_KEY: 'sk-test' }))).toEqual({ chat: 'openai', embedding: 'openai' });
  });

  it('describes itself without secrets', () => {
    const c = loadConfig({ ADMIN_API_KEY: 'a-very-secret-admin-key', DATABASE_URL: 'postgres://u:pw@db/kb', OPENAI_API_KEY: 'sk-live' });
    const text = JSON.stringify(describeConfig(c));
    expect(text).not.toContain('a-very-secret-admin-key');
    expect(text).not.toContain(':pw@');
    expect(text).not.toContain('sk-live');
    // Token *limits* are settings, not secrets: the start-up log shows them.
    expect(describeConfig(c)).toMatchObject({ OPENAI_CHAT_MAX_TOKENS: 800, ADMIN_API_KEY: '<set>' });
  });

  it('.env.example lists every variable, with its default', () => {
    const example = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
    const listed = new Map(
      example
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect([...listed.keys()].sort()).toEqual([...configKeys].sort());
    // The example, used as an environment, is the default configuration.
    expect(loadConfig(Object.fromEntries(listed))).toEqual(loadConfig({}));
  });
});
