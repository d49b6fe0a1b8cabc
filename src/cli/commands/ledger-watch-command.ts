/**
 * `x402-intel ledger watch`: the service's live ledger in the terminal, one line per entry as it
 * becomes durable (the page's ledger panel, from the same feed: docs/storefront.md#the-live-ledger-feed).
 * On connect the feed sends its newest entries; after a dropped connection the watch connects
 * again and prints only what it has not printed. Runs until Ctrl-C (exit 0). With --json each
 * entry is one JSON line, exactly as the service sent it.
 */
import { type ClientSocket, openClientSocket } from '../../client/client-socket.ts';
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { SERVICE_URL_HINT, resolveServiceUrl, serviceHref } from '../service-url.ts';
import { formatUnits, USDC_DECIMALS } from '../usd-amount.ts';

/** The feed's path on the service. */
export const LEDGER_FEED_PATH = '/ledger/live';
/** Wait before connecting again after the feed dropped. */
const RECONNECT_MS = 2_000;

interface FeedEntry {
  readonly index: number;
  readonly time: string;
  readonly kind: string;
  readonly endpoint?: string;
  readonly priceUsdcUnits?: number;
  readonly network?: string;
  readonly event?: string;
  readonly reason?: string;
}

/** One entry as a line: `#12  2026-11-24T12:00:00.000Z  payment  /v1/epoch  $0.001  solana:5eyk…`. */
export function entryLine(e: FeedEntry): string {
  const what =
    e.kind === 'payment'
      ? `${e.endpoint ?? '?'}  $${formatUnits(BigInt(e.priceUsdcUnits ?? 0), USDC_DECIMALS)}  ${e.network ?? ''}`
      : `${e.event ?? '?'}${e.reason ? `  (${e.reason})` : ''}`;
  return `#${e.index}  ${e.time}  ${e.kind.padEnd(7)}  ${what}`;
}

/** The feed's WebSocket URL for a service base URL (a path prefix kept). */
export function feedUrl(base: string): string {
  return serviceHref(base, LEDGER_FEED_PATH).replace(/^http/, 'ws');
}

/** Runs `ledger watch`. */
export async function runLedger(ctx: CommandContext): Promise<ExitCode> {
  const [sub] = takePositionals(ctx.args, ['the subcommand: watch']) as [string];
  if (sub !== 'watch') throw usageError(`unknown ledger subcommand "${sub.slice(0, 40)}"; the one there is: watch`);
  const url = feedUrl(resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env));
  let printed = -1;
  let connectedOnce = false;
  const show = (text: string) => {
    const message = JSON.parse(text) as { type?: string; entry?: FeedEntry; treeSize?: number };
    if (message.type === 'checkpoint' && !connectedOnce) {
      connectedOnce = true;
      ctx.out.note(`watching ${url}: ${message.treeSize} entries so far (Ctrl-C stops)`);
    }
    if (message.type !== 'entry' || !message.entry || message.entry.index <= printed) return;
    printed = message.entry.index;
    ctx.out.line(ctx.out.json ? JSON.stringify(message.entry) : entryLine(message.entry));
  };
  return new Promise<ExitCode>((resolve, reject) => {
    let socket: ClientSocket | null = null;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const finish = (outcome: () => void) => {
      stopped = true;
      clearTimeout(timer);
      socket?.terminate();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      outcome();
    };
    const stop = () => finish(() => resolve(EXIT.ok));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const connect = (): void => {
      socket = openClientSocket(url, {
        onMessage: show,
        onClose: () => {
          if (stopped) return;
          if (!connectedOnce) return finish(() => reject(new CliError('unreachable', `could not reach ${url}; ${SERVICE_URL_HINT}`, EXIT.unreachable)));
          ctx.out.note(`the feed closed; connecting again in ${RECONNECT_MS / 1000} s`);
          timer = setTimeout(connect, RECONNECT_MS);
        },
      });
    };
    connect();
  });
}
