/**
 * The commands the console shows, quoted for a POSIX shell: single quotes around everything, an
 * embedded single quote closed, escaped and reopened, so what is pasted is exactly what was built.
 */

/** `s` as one POSIX shell word. */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Asks for the terms: without payment the service answers 402 with `PAYMENT-REQUIRED`. */
export function termsCurl(url: string): string {
  return `curl -i ${shellQuote(url)}`;
}

/**
 * The paid call: the same request with the base64 x402 payment payload an x402 client signed for
 * one of the terms. `$PAYMENT` is left for the shell to expand.
 */
export function paidCurl(url: string): string {
  return `curl -sS -D - -H "PAYMENT-SIGNATURE: $PAYMENT" ${shellQuote(url)}`;
}

/** One request as the console built it. */
export interface BuiltRequest {
  /** `http://127.0.0.1:8402`: the origin the page was loaded from. */
  readonly origin: string;
  readonly path: string;
  readonly query: URLSearchParams;
}

/** The full URL of a built request. */
export function requestUrl(r: BuiltRequest): string {
  const q = r.query.toString();
  return `${r.origin}${r.path}${q ? `?${q}` : ''}`;
}

/** The key file the CLI lines pay from: the README's walk-through makes and funds it (`keygen`, `localnet fund`). */
export const CLI_KEYPAIR = 'payer.json';

/**
 * The same paid call through the project's CLI (`x402-intel call <path> --<param> <value> ...
 * --keypair payer.json --url <base>`), which pays with the official x402 client. The key file is
 * named: without it the CLI reads the Solana CLI's default keypair, which a newcomer has not got.
 */
export function cliCall(r: BuiltRequest): string {
  const params = [...r.query].map(([name, value]) => ` --${name} ${shellQuote(value)}`).join('');
  return `npx x402-intel call ${shellQuote(r.path)}${params} --keypair ${CLI_KEYPAIR} --url ${shellQuote(r.origin)}`;
}

/** The two commands that make and fund the key file `cliCall` pays from, on the embedded localnet. */
export function cliKeySetup(r: Pick<BuiltRequest, 'origin'>): string {
  return `npx x402-intel keygen ${CLI_KEYPAIR} && npx x402-intel localnet fund --keypair ${CLI_KEYPAIR} --url ${shellQuote(r.origin)}`;
}
