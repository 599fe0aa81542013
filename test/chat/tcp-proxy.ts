import net from 'node:net';

/**
 * A TCP pass-through that can be taken down and brought back on the same port: a database
 * outage for one gateway, without touching the Postgres every other test uses.
 */
export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones (ECONNREFUSED), like a stopped server. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Holds every byte sent towards the server (connections stay open), like a server that stopped answering. */
  hold(): void;
  /** Forwards what was held, and everything after it. */
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const held: { upstream: net.Socket; chunk: Buffer }[] = [];
  let holding = false;
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.on('data', (chunk: Buffer) => {
          if (holding) held.push({ upstream, chunk });
          else upstream.write(chunk);
        });
        client.on('end', () => upstream.end());
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    port,
    down,
    up: listen,
    close: down,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const { upstream, chunk } of held.splice(0)) if (!upstream.destroyed) upstream.write(chunk);
    },
  };
}
