import { loadConfig } from '@kbchat/shared/config';
import { type ChatInput, type ChatOutput, type ChatStreamEvent, createChatProvider } from '@kbchat/shared/providers/chat/chat';
import { describe, expect, it } from 'vitest';

// The offline answerer, on passages shaped like the chat service's retrieval output.
const provider = createChatProvider(loadConfig({}));

const passages = [
  {
    id: 'p-watch',
    url: 'https://docs.test/fs',
    title: 'File system',
    heading: 'fs.watch caveats',
    content:
      'The fs.watch API is not 100% consistent across platforms. ' +
      'The recursive option is only supported on macOS and Windows. ' +
      'An ERR_FEATURE_UNAVAILABLE_ON_PLATFORM exception will be thrown when the option is used on a platform that does not support it. ' +
      'On Linux, use a library that walks the tree and watches each directory.',
  },
  {
    id: 'p-stream',
    url: 'https://docs.test/stream',
    title: 'Stream',
    heading: 'Backpressure',
    content:
      'When write() returns false, stop writing and wait for the drain event before writing more data. ' +
      'Ignoring backpressure makes the process buffer everything in memory.',
  },
  {
    id: 'p-buffer',
    url: 'https://docs.test/buffer',
    title: 'Buffer',
    content: 'Buffer.from(string, "base64") decodes a base64 string. Calling toString("utf8") on the buffer gives the text back.',
  },
];

const input = (message: string, over: Partial<ChatInput> = {}): ChatInput => ({
  clientName: 'Node Docs',
  message,
  query: message,
  history: [],
  passages,
  ...over,
});

describe('extractive chat provider', () => {
  it('is the offline default', () => {
    expect(provider.kind).toBe('extractive');
  });

  it('answers with the matching sentences and cites the passage they come from', async () => {
    const out = await provider.answer(input('Why does fs.watch with the recursive option throw on Linux?'));
    expect(out.usedPassageIds[0]).toBe('p-watch');
    expect(out.answer).toContain('On Linux, use a library that walks the tree and watches each directory.');
    expect(out.answer).toContain('[1]');
    expect(out.answer).not.toContain('drain');
    expect(out.leadCaptureIntent).toBe(false);
    expect(out.usage).toBeUndefined();
  });

  it('starts at the sentence that answers and goes on in page order, whole sentences within about 80 words', async () => {
    const out = await provider.answer(input('is the recursive option supported on macOS and Windows only?', { passages: [passages[0]!] }));
    expect(out.answer.startsWith('fs.watch caveats: The recursive option is only supported on macOS and Windows. An ERR_FEATURE')).toBe(
      true,
    );
    expect(out.answer.indexOf('On Linux')).toBeGreaterThan(out.answer.indexOf('An ERR_FEATURE'));
    expect(out.answer).not.toContain('not 100% consistent');
    expect(out.answer.split(/\s+/).length).toBeLessThanOrEqual(85);
  });

  it('cites each used passage once, numbered in usedPassageIds order', async () => {
    const out = await provider.answer(
      input('write returns false: wait for drain? and decode base64 string buffer', { passages: [passages[1]!, passages[2]!] }),
    );
    expect(new Set(out.usedPassageIds)).toEqual(new Set(['p-stream', 'p-buffer']));
    const cited = [...out.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited).toEqual(out.usedPassageIds.map((_, i) => i + 1));
    const first = out.usedPassageIds[0] === 'p-stream' ? 'drain' : 'base64';
    expect(out.answer.indexOf(first)).toBeLessThan(out.answer.indexOf('[1]'));
  });

  it('forgives a typo in the question', async () => {
    const out = await provider.answer(input('how to decode a base64 strng back into text', { passages: [passages[1]!, passages[2]!] }));
    expect(out.usedPassageIds).toEqual(['p-buffer']);
  });

  it('says honestly it does not know when there are no passages, and offers contact', async () => {
    const out = await provider.answer(input('Can I get a refund on my subscription?', { passages: [] }));
    expect(out).toMatchObject({ usedPassageIds: [], leadCaptureIntent: false });
    expect(out.answer).toMatch(/I don't know/);
    expect(out.answer).toMatch(/contact you/);
    const es = await provider.answer(input('¿Puedo pedir un reembolso de mi suscripción?', { passages: [] }));
    expect(es.answer).toMatch(/^No lo sé/);
  });

  it('detects lead intent offline and answers a pure contact request with the contact offer', async () => {
    const out = await provider.answer(input('Can someone from sales call me tomorrow?'));
    expect(out.leadCaptureIntent).toBe(true);
    expect(out.usedPassageIds).toEqual([]);
    expect(out.answer).toMatch(/someone from Node Docs will get in touch/);
    const both = await provider.answer(input('I need a quote. Also, why does fs.watch recursive fail on Linux?'));
    expect(both.leadCaptureIntent).toBe(true);
    expect(both.usedPassageIds[0]).toBe('p-watch');
    expect(both.answer).toMatch(/get in touch/);
  });

  it('streams the same answer word by word, then one done', async () => {
    const message = 'What should I do when write() returns false?';
    const tokens: string[] = [];
    const done: ChatOutput[] = [];
    for await (const e of provider.stream(input(message)) as AsyncIterable<ChatStreamEvent>) {
      if (e.type === 'token') tokens.push(e.text);
      else done.push(e.output);
    }
    expect(done).toHaveLength(1);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe(done[0]!.answer);
    expect(done[0]).toEqual(await provider.answer(input(message)));
  });

  it('rewrites a follow-up with the previous question’s key terms and leaves a new question alone', async () => {
    const history = [
      { role: 'user' as const, content: 'How do I run a shell command like ls from my Node script and get its output?' },
      { role: 'assistant' as const, content: 'Use child_process.exec [1].' },
    ];
    const follow = await provider.rewriteQuery('That works, but the output gets cut off. Is there a limit I can raise?', history);
    expect(follow.query).toMatch(/shell/);
    expect(follow.query).toMatch(/command/);
    expect(follow.query.endsWith('That works, but the output gets cut off. Is there a limit I can raise?')).toBe(true);
    const fresh = 'How can I generate a random UUID without installing a package from npm?';
    expect((await provider.rewriteQuery(fresh, history)).query).toBe(fresh);
    expect((await provider.rewriteQuery('and over SSL?', [])).query).toBe('and over SSL?');
  });
});

describe('extractive answers in Japanese', () => {
  it('splits sentences at 。 and answers from the matching one', async () => {
    const jp = {
      id: 'jp-returns',
      url: 'https://shop.test/returns',
      title: '返品について',
      content: '営業時間は月曜日から金曜日までです。商品はお届けから30日以内であれば返品できます。送料は5000円以上で無料です。',
    };
    const out = await provider.answer(input('返品は何日以内にできますか', { passages: [jp] }));
    expect(out.usedPassageIds).toEqual(['jp-returns']);
    expect(out.answer.startsWith('商品はお届けから30日以内であれば返品できます。')).toBe(true);
    // The sentence before it on the page is about something else.
    expect(out.answer).not.toContain('営業時間');
  });
});
