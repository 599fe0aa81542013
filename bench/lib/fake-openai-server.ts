// test/support/fake-openai.ts in a process of its own, for the load part: its work (JSON, token
// counting) stays out of the load generator's event loop. For every chat completion it prints
//   M <request id> <hrtime ms>
// when the request has arrived (body read), the id being the `req=<n>` of the page URL the system
// prompt names, so the load part can tell, per request, when the model was called.
//
//   PORT=… node bench/lib/fake-openai-server.ts   → prints "READY <base url> <api key>"
import { defaultChatReply, startFakeOpenAI } from '../../test/support/fake-openai.ts';

const fake = await startFakeOpenAI();
fake.chatHandler = (body) => {
  const at = Number(process.hrtime.bigint()) / 1e6;
  // The fake records every body; nothing here reads them, so they are not kept.
  fake.requests.chat.length = 0;
  const id = /[?&]req=(\d+)/.exec(body.messages.map((m) => m.content ?? '').join('\n'))?.[1] ?? '-';
  process.stdout.write(`M ${id} ${at.toFixed(3)}\n`);
  return defaultChatReply(body);
};
process.stdout.write(`READY ${fake.baseUrl} ${fake.env.OPENAI_API_KEY}\n`);
const stop = async () => {
  await fake.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
