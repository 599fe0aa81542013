import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site whose server closes each connection when a second request arrives on it: the race of a
 * server dropping an idle kept-alive socket just as the client sends on it, made certain. Every page
 * is a short HTML page naming its path.
 */
export async function startClosingServer(): Promise<{ url: string; served: string[]; close: () => Promise<void> }> {
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    if (socket.requests > 1) {
      socket.destroy();
      return;
    }
    served.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html', connection: 'keep-alive', 'keep-alive': 'timeout=60' });
    res.end(`<!DOCTYPE html><title>Page</title><p>Text of ${req.url}, long enough to be a page of its own.</p><script></script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
