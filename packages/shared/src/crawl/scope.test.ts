import { describe, expect, it } from 'vitest';
import { compileScope } from './scope.ts';

describe('compileScope', () => {
  it('keeps everything without patterns', () => {
    expect(compileScope({})('https://s.example/anything?x=1')).toBe(true);
  });

  it('matches path globs: * within a segment, ** across them', () => {
    const inDocs = compileScope({ include: ['/docs/**'] });
    expect(inDocs('https://s.example/docs/a/b.html')).toBe(true);
    expect(inDocs('https://s.example/docs/')).toBe(true);
    expect(inDocs('https://s.example/blog/docs/a')).toBe(false);
    const oneLevel = compileScope({ include: ['/docs/*.html'] });
    expect(oneLevel('https://s.example/docs/a.html')).toBe(true);
    expect(oneLevel('https://s.example/docs/a/b.html')).toBe(false);
    const anyDepth = compileScope({ include: ['/docs/**/intro'] });
    expect(anyDepth('https://s.example/docs/intro')).toBe(true);
    expect(anyDepth('https://s.example/docs/x/y/intro')).toBe(true);
  });

  it('excludes win over includes; a full-URL pattern and a query pattern', () => {
    const scope = compileScope({ include: ['/docs/**'], exclude: ['/docs/archive/**', '/docs/*?print=*'] });
    expect(scope('https://s.example/docs/guide')).toBe(true);
    expect(scope('https://s.example/docs/archive/2019')).toBe(false);
    expect(scope('https://s.example/docs/guide?print=1')).toBe(false);
    expect(compileScope({ exclude: ['https://s.example/private/**'] })('https://s.example/private/x')).toBe(false);
  });

  it('treats regex characters in patterns literally', () => {
    const scope = compileScope({ include: ['/a.b/(x)/**'] });
    expect(scope('https://s.example/a.b/(x)/y')).toBe(true);
    expect(scope('https://s.example/aXb/(x)/y')).toBe(false);
  });
});
