/**
 * The one importer of `ws` (Node 20 has no WebSocket client without a flag): a text WebSocket as
 * the client library's streams and the CLI's live ledger use it. Errors are swallowed here: the
 * close that follows says what matters, and an error's own text names a library's internals.
 */
import WebSocket from 'ws';

export interface ClientSocketHandlers {
  readonly onOpen?: () => void;
  readonly onMessage: (text: string) => void;
  readonly onClose: (code: number, reason: string) => void;
}

export interface ClientSocket {
  send(text: string): void;
  /** A normal close (1000). */
  close(): void;
  /** Drops the connection at once (no close handshake). */
  terminate(): void;
}

/** Connects to `url` (ws:// or wss://). */
export function openClientSocket(url: string, handlers: ClientSocketHandlers): ClientSocket {
  const socket = new WebSocket(url);
  if (handlers.onOpen) socket.on('open', handlers.onOpen);
  socket.on('message', (data) => handlers.onMessage(String(data)));
  socket.on('error', () => {});
  socket.on('close', (code, reason) => handlers.onClose(code, String(reason)));
  return {
    send: (text) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    },
    close: () => socket.close(1000),
    terminate: () => socket.terminate(),
  };
}
