/**
 * Everything a client was shown, kept to be searched for secrets: response bodies, every header
 * (base64 values decoded too, as PAYMENT-REQUIRED and PAYMENT-RESPONSE are), WebSocket messages,
 * and the lines a process printed. A secret is found case-insensitively, so a URL a library
 * lower-cased or a header it echoed is found as well.
 */

/** One thing a client (or the log) saw, and where. */
interface Exposure {
  readonly where: string;
  readonly text: string;
}

export interface SecretExposure {
  /** Keeps `text` as seen at `where`. */
  add(where: string, text: string): void;
  /** Keeps a response's status, headers (decoded) and body; returns the body. */
  response(where: string, res: Response): Promise<string>;
  /** Where any of `secrets` was seen since the `from`-th thing kept, with the text around it (empty: nowhere). */
  leaks(secrets: readonly string[], from?: number): string[];
  /** How many things were kept so far (a `from` for `leaks`). */
  count(): number;
}

const BASE64_RE = /^[A-Za-z0-9+/]{16,}={0,2}$/;
const CONTEXT_CHARS = 120;

export function createSecretExposure(): SecretExposure {
  const seen: Exposure[] = [];
  const add = (where: string, text: string): void => {
    seen.push({ where, text });
    if (BASE64_RE.test(text)) seen.push({ where: `${where} (base64-decoded)`, text: Buffer.from(text, 'base64').toString('utf8') });
  };
  return {
    add,
    async response(where, res) {
      for (const [name, value] of res.headers) add(`${where}: header ${name}`, value);
      const body = await res.text();
      add(`${where}: body (${res.status})`, body);
      return body;
    },
    count: () => seen.length,
    leaks(secrets, from = 0) {
      const found: string[] = [];
      for (const { where, text } of seen.slice(from)) {
        const lower = text.toLowerCase();
        for (const secret of secrets) {
          const at = lower.indexOf(secret.toLowerCase());
          if (at >= 0) found.push(`${where}: ...${text.slice(Math.max(0, at - CONTEXT_CHARS), at + secret.length + CONTEXT_CHARS)}...`);
        }
      }
      return found;
    },
  };
}
