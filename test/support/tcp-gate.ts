import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP forwarder on loopback that a test can close and reopen on the same port: the store
 * "unreachable" at the network level (connections cut, new ones refused) and back, for servers the
 * tests cannot restart in place.
 */
export interface TcpGate {
  readonly port: number;
  /** Cuts every connection through the gate and refuses new ones. */
  close(): Promise<void>;
  /** Accepts connections again, on the same port. */
  open(): Promise<void>;
}

export async function startTcpGate(targetPort: number): Promise<TcpGate> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const open = async () => {
    const listening = createServer((client) => {
      const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
        socket.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
      client.once("close", () => upstream.destroy());
      upstream.once("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => resolve());
    });
    port = (listening.address() as { port: number }).port;
    server = listening;
  };
  await open();
  return {
    get port() {
      return port;
    },
    close: async () => {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    open,
  };
}
