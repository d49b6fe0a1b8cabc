/**
 * What the CLI's exit status means, in one table, and the one way a failure becomes an exit
 * status: scripts branch on the status, people read the sentence. A failure the CLI expects (bad
 * arguments, a price above the cap, the service saying no) is a CliError with its status; anything
 * else is classified here once, so every command maps the same fault to the same status.
 */
import { ConfigError } from '../errors.ts';

/** Exit statuses, documented in `x402-intel --help` and docs/cli.md. */
export const EXIT = {
  /** Done: the answer, the report or the funding is on stdout. */
  ok: 0,
  /** The service answered with an error, or a verification failed. */
  failed: 1,
  /** Bad command line: unknown command, path or parameter, malformed value. */
  usage: 2,
  /** Refused to pay: the price asked is above --max-price; nothing was signed. */
  priceRefused: 3,
  /** The free daily preview is used up (HTTP 429). */
  previewLimit: 4,
  /** The service (or the chain RPC) could not be reached, or did not answer in time. */
  unreachable: 5,
  /** A key file is missing, malformed, or readable by group or others. */
  keyFile: 6,
} as const;

/** One of the documented exit statuses. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A failure the CLI expected: a snake_case code for scripts, a sentence for people, the exit
 * status. `plain`, when given, is what a person reads instead of the bare sentence (the service's
 * answer says which URL answered, its HTTP status and code before its sentence); the --json
 * document keeps code, sentence and details apart.
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exit: ExitCode,
    readonly details: Readonly<Record<string, unknown>> = {},
    readonly plain: string = message,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A usage error (exit 2). */
export const usageError = (message: string, details?: Readonly<Record<string, unknown>>): CliError => new CliError('usage', message, EXIT.usage, details);

/**
 * A usage error of `command` with its usage line after it, on a line of its own (`usage` in the
 * --json document): the line a person corrects the command against.
 */
export function withUsageLine(err: CliError, command: string, usage: string): CliError {
  if (err.plain.includes('\nusage: x402-intel ')) return err;
  const line = `usage: x402-intel ${usage}`;
  return new CliError(
    err.code,
    err.message,
    err.exit,
    { ...err.details, usage: line },
    `${err.plain}\n${line}\n(x402-intel help ${command} lists its options)`,
  );
}

/** Error codes of Node's network stack (undici and the resolver) that mean "could not reach". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** True when `err` (or an error it wraps) is a failure to reach a server or a request that timed out. */
export function isNetworkFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
    if (NETWORK_CODES.has((e as NodeJS.ErrnoException).code ?? '')) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}

/** Any thrown value as a CliError: expected ones as they are, network failures exit 5, key files 6, the rest 1. */
export function toCliError(err: unknown, service = 'the service'): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof ConfigError) return new CliError('key_file', err.problems.join('; '), EXIT.keyFile);
  if (isNetworkFailure(err)) return new CliError('unreachable', `could not reach ${service} (${networkReason(err)})`, EXIT.unreachable);
  return new CliError('failed', err instanceof Error ? err.message : String(err), EXIT.failed);
}

/** The most specific reason a network failure carries (`ECONNREFUSED`, `timed out`, `bad port` ...). */
function networkReason(err: unknown): string {
  let reason = 'network error';
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'TimeoutError') return 'timed out';
    const code = (e as NodeJS.ErrnoException).code;
    if (code) reason = code;
    else if (depth > 0 && e.message) reason = e.message;
  }
  return reason;
}
