/**
 * `x402-intel stream <topic> [--seconds N] [--periods N] [--json]`: a paid live stream
 * (docs/streams.md) through the client library: one JSON line per update on stdout, as the
 * service sent its data; at the end, what it paid (periods, units, receipts) and why it ended.
 * With a Base key it pays through a channel (one deposit, a voucher a period); with a Solana
 * keypair, `exact`, a window of `--periods` periods a payment (default 1).
 */
import { formatUsd } from '../../catalog/format-usd.ts';
import { STREAM_CATALOG, STREAM_MAX_WINDOW_PERIODS } from '../../catalog/streams.ts';
import { createIntelClient } from '../../client/intel-client.ts';
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { loadPayerKey, parseNetwork, payerAddress } from '../payer-keys.ts';
import { localnetUrls, readHealth, serviceFailure } from '../service-http.ts';
import { isLoopbackUrl, resolveServiceUrl } from '../service-url.ts';
import { parseUnits, USDC_DECIMALS } from '../usd-amount.ts';
import { SOLANA_MAINNET_RPC_URL } from '../x402-payer.ts';

/** The options of `stream`. */
export const STREAM_OPTIONS = ['seconds', 'periods', 'network', 'keypair', 'evm-key', 'max-price', 'url', 'rpc-url'] as const;
/** The longest --seconds accepted: a day. */
const MAX_SECONDS = 86_400;

function topicOf(word: string) {
  const stream = STREAM_CATALOG.find((s) => s.topic === word || s.path === word);
  if (!stream) throw usageError(`unknown stream "${word.slice(0, 40)}"; the streams: ${STREAM_CATALOG.map((s) => s.topic).join(', ')}`);
  return stream;
}

function secondsOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SECONDS) throw usageError(`--seconds takes a whole number of seconds from 1 to ${MAX_SECONDS}`);
  return n;
}

/** `--periods`: a Solana window's length; a channel buys one period a voucher, so there it is refused. */
export function periodsOf(value: string | undefined, network: 'solana' | 'base'): number {
  if (value === undefined) return 1;
  const n = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > STREAM_MAX_WINDOW_PERIODS) throw usageError(`--periods takes a whole number from 1 to ${STREAM_MAX_WINDOW_PERIODS}`);
  if (network !== 'solana' && n !== 1) throw usageError('--periods buys a window on Solana only (--keypair); a Base channel pays a period a voucher');
  return n;
}

/** Runs `stream`. */
export async function runStream(ctx: CommandContext): Promise<ExitCode> {
  const [word] = takePositionals(ctx.args, ['<topic>']) as [string];
  const stream = topicOf(word);
  const seconds = secondsOf(optionValue(ctx.args, 'seconds'));
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const maxUnits = parseUnits(optionValue(ctx.args, 'max-price') ?? '1', USDC_DECIMALS, '--max-price');
  const key = await loadPayerKey({
    // A stream is a channel's lane: a Base key alone means Base.
    network: parseNetwork(optionValue(ctx.args, 'network') ?? (optionValue(ctx.args, 'evm-key') !== undefined ? 'base' : undefined)),
    keypair: optionValue(ctx.args, 'keypair'),
    evmKey: optionValue(ctx.args, 'evm-key'),
    home: ctx.home,
    cwd: ctx.cwd,
  });
  const periods = periodsOf(optionValue(ctx.args, 'periods'), key.network);
  const localnet = isLoopbackUrl(base) ? localnetUrls(await readHealth(base)) : null;
  const svmRpcUrl = optionValue(ctx.args, 'rpc-url') ?? localnet?.rpcUrl ?? SOLANA_MAINNET_RPC_URL;
  const client = createIntelClient({
    url: base,
    ...(key.network === 'solana' ? { svmKeypair: key.signer, prefer: 'solana-exact' as const } : { evmKey: key.key, prefer: 'base-channel' as const }),
    svmRpcUrl,
    spendLimit: { perCallUnits: maxUnits },
    anyAsset: localnet !== null,
  });
  ctx.out.note(
    `streaming ${stream.path} (${formatUsd(stream.priceUnits)} per ${stream.periodSeconds} s${periods > 1 ? `, ${periods} periods a payment` : ''}) as ${payerAddress(key)}${seconds ? ` for ${seconds} s` : ''}`,
  );
  const stop = new AbortController();
  const timer = seconds === null ? null : setTimeout(() => stop.abort(), seconds * 1000);
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  ctx.interrupt?.addEventListener('abort', interrupt, { once: true });
  if (ctx.interrupt?.aborted) stop.abort();
  try {
    const result = await client.stream(stream.topic, { signal: stop.signal, periods, onUpdate: (u) => ctx.out.line(JSON.stringify(u)) });
    const paid = { topic: stream.topic, ended: result.reason, message: result.message, ...(result.error ? { error: result.error } : {}) };
    const summary = { ...paid, periods: result.periods, paidUnits: result.paidUnits.toString(), updates: result.updates, receipts: result.receipts };
    ctx.out.result(
      summary,
      () =>
        `paid ${result.periods} period(s), ${formatUsd(Number(result.paidUnits))}, for ${result.updates} updates; ended: ${result.reason} (${result.message})`,
    );
    if (result.reason === 'ended' || result.reason === 'lapsed') return EXIT.ok;
    throw new CliError(result.reason, `the stream ended: ${result.message}`, EXIT.failed);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw serviceFailure(err, base);
  } finally {
    if (timer) clearTimeout(timer);
    process.off('SIGINT', interrupt);
    ctx.interrupt?.removeEventListener('abort', interrupt);
    client.close();
  }
}
