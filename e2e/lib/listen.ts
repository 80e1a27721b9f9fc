/**
 * The scripted model servers' one way to listen: an ephemeral port on 127.0.0.1, and a close that
 * drops kept-alive connections and is safe to call twice.
 *
 * Example:
 * ```ts
 * const { url, close } = await listenLocal(createServer(handler));
 * await fetch(`${url}/v1/models`);
 * await close();
 * ```
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Closes the server and its open connections; the same promise on every call. */
  close(): Promise<void>;
}

/** Listens on an ephemeral local port; rejects when the server cannot listen. */
export async function listenLocal(server: Server): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}
