/**
 * A bare uWebSockets.js hello-world: the reference the HTTP benchmarks compare our routes to.
 * The one import of uWS outside src/http, by design: it is a measuring stick for the benchmark,
 * not service code, and it must stay bare uWS so the ratio measures what our routes add.
 */
import uWS from 'uWebSockets.js';

/** Starts the reference server; resolves with its port and a close function. */
export function startHelloWorld(host: string, port: number): Promise<{ port: number; close(): void }> {
  const app = uWS.App().get('/*', (res) => {
    res.end('Hello World!');
  });
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) return reject(new Error(`hello-world cannot listen on ${host}:${port}`));
      resolve({ port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket), close: () => uWS.us_listen_socket_close(socket) });
    });
  });
}

// Run as a child by the benchmark (`node --import tsx bench/hello-server.ts`): its own process,
// like the service and the reference, so none of them shares an event loop with another.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const running = await startHelloWorld('127.0.0.1', 0);
  console.log(`listening ${running.port}`);
  process.on('SIGTERM', () => {
    running.close();
    process.exit(0);
  });
}
