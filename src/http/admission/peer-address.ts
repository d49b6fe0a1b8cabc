/**
 * The peer's address as text, from the raw bytes uWS gives (`getRemoteAddress`: 4 bytes for an
 * IPv4 socket, 16 for an IPv6 one). It writes what uWS's own `getRemoteAddressAsText` writes:
 * dotted decimal, or eight groups of four lower-case hex digits (`0000:...:ffff:7f00:0001` for an
 * IPv4-mapped peer), so every key derived from it (rate limits, the preview quota) is unchanged.
 *
 * Why not the text call: every request reads the peer (the free rate limit keys on it), and the
 * text form costs an ArrayBuffer, a Buffer and a UTF-8 decode on top of the `getpeername` both
 * forms make. The bytes are compared with the previous request's instead: a kept-alive client's
 * requests come in runs from one address, and those reuse the text made for the first.
 */

/** Turns the bytes of `getRemoteAddress` into uWS's text form; '' for any other length. */
export type PeerAddressText = (raw: ArrayBuffer) => string;

const hex4 = (n: number): string => n.toString(16).padStart(4, '0');

function format(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  if (bytes.length !== 16) return '';
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(hex4((bytes[i]! << 8) | bytes[i + 1]!));
  return groups.join(':');
}

/**
 * Creates a converter that remembers the last address it formatted. One per server: the memory
 * is one address, so a request from another client costs one formatting, never a wrong answer.
 */
export function createPeerAddressText(): PeerAddressText {
  let last = new Uint8Array(0);
  let lastText = '';
  return (raw) => {
    const bytes = new Uint8Array(raw);
    if (bytes.length === last.length) {
      let same = true;
      for (let i = 0; i < bytes.length; i++)
        if (bytes[i] !== last[i]) {
          same = false;
          break;
        }
      if (same) return lastText;
    }
    // A copy: uWS may reuse or detach the buffer it handed over once the callback returns.
    last = bytes.slice();
    lastText = format(last);
    return lastText;
  };
}
