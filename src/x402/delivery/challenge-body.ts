/**
 * The body of a 402. Over HTTP, x402 v2 carries the challenge in `PAYMENT-REQUIRED` and leaves the
 * body to the server; the official clients read the header only. Every byte of a 402 is paid by
 * every bot on every call, so the body does not repeat the challenge: it is the house's short JSON
 * error (`error` code, one `message`) and a pointer to the discovery document, for people.
 */

/** Where the catalog of every paid route, its terms and its signed offers are published. */
export const DISCOVERY_PATH = '/.well-known/x402';

/** The challenge's `error` when no payment was sent. */
export const PLAIN_CHALLENGE_ERROR = 'Payment required';
const PLAIN_CODE = 'payment_required';
const PLAIN_MESSAGE =
  'pay one of the x402 v2 options of the PAYMENT-REQUIRED header (base64 JSON) and send the same request again with the payment in PAYMENT-SIGNATURE';
/** A refusal whose reason came without a sentence. */
const REFUSED_MESSAGE = 'the payment was refused for the reason the error code names; the terms are in the PAYMENT-REQUIRED header';

/** A challenge `error` of the form `<x402 reason>: <sentence>` (or the reason alone). */
const REASON_RE = /^([a-z][a-z0-9_]*)(?::\s*([\s\S]*))?$/;

/** The discovery document's URL for a resource of `path` (its service's base), or null when the resource is not an HTTP URL. */
export function discoveryUrlOf(resourceUrl: string, path: string): string | null {
  if (!/^https?:/.test(resourceUrl)) return null;
  const query = resourceUrl.indexOf('?');
  const endpoint = query < 0 ? resourceUrl : resourceUrl.slice(0, query);
  return endpoint.endsWith(path) ? `${endpoint.slice(0, endpoint.length - path.length)}${DISCOVERY_PATH}` : null;
}

/** The `error` and `message` a challenge's `error` string stands for. */
export function errorOfChallenge(error: string): { readonly error: string; readonly message: string } {
  if (error === PLAIN_CHALLENGE_ERROR) return { error: PLAIN_CODE, message: PLAIN_MESSAGE };
  const parts = REASON_RE.exec(error);
  if (!parts) return { error: PLAIN_CODE, message: error };
  return { error: parts[1]!, message: parts[2] || REFUSED_MESSAGE };
}

/** The JSON body of a 402 for `resourceUrl` (a resource of `path`) whose challenge says `error`. */
export function challengeBody(resourceUrl: string, path: string, error: string): string {
  const discovery = discoveryUrlOf(resourceUrl, path);
  return JSON.stringify({ ...errorOfChallenge(error), ...(discovery ? { discovery } : {}) });
}
