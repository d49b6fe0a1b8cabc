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

/** The same paid call through the project's CLI, which pays with the official x402 client. */
export function cliCall(url: string): string {
  return `npx x402-intel call ${shellQuote(url)}`;
}
