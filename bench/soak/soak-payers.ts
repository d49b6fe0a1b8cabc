/**
 * The paying side of the soak: payers funded through the embedded localnet's faucets (a Solana
 * keypair, a Base key), the official x402 client for each network, and a paid request sent on a
 * raw socket and dropped while it settles, then retried with the identical payment as an x402
 * client would. The service runs in another process, so everything goes over HTTP.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { connect } from 'node:net';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { officialSvmClient } from '../../test/helpers/official-svm-client.ts';
import { fundedPayer, rpcCall } from '../../test/helpers/svm-payer.ts';

/** CAIP-2 id of Base, the network the service's EVM challenges name. */
const BASE = 'eip155:8453';
/** Stablecoin units each payer starts with: far more than a soak spends. */
const FUND_UNITS = 500_000_000;
/** How long a retry of a dropped payment keeps asking while the first attempt still settles. */
const RETRY_DEADLINE_MS = 60_000;
const RETRY_PAUSE_MS = 100;

/** What the service's child process printed about its localnet. */
export interface LocalnetTarget {
  readonly serviceUrl: string;
  readonly port: number;
  readonly rpcUrl: string;
  readonly evmRpcUrl: string;
  readonly stablecoinMint: string;
  readonly evmUsdc: string;
}

export type Network = 'solana' | 'base';

/** An official x402 client per network, each paying from its own funded payer. */
export type Clients = Readonly<Record<Network, x402Client>>;

/** Funds one Solana payer and one Base payer on the localnet and builds their clients. */
export async function createClients(target: LocalnetTarget): Promise<Clients> {
  const svmPayer = await fundedPayer(target.rpcUrl, FUND_UNITS);
  const evmKey = generateEvmKey();
  await rpcCall(target.evmRpcUrl, 'localnet_fundStablecoin', [evmAddressOfKey(evmKey), FUND_UNITS]);
  const base = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE)!);
  base.setSpendControls({ allowedAssets: [{ network: BASE, asset: target.evmUsdc, maxAmountPerPayment: '1000000' }] });
  base.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(evmKey)));
  return { solana: officialSvmClient(svmPayer, { rpcUrl: target.rpcUrl, stablecoinMint: target.stablecoinMint }), base };
}

/** `fetch` that pays 402 challenges with `client` (the official wrapper). */
export const payingFetch = (client: x402Client): typeof fetch => wrapFetchWithPayment(fetch, client) as typeof fetch;

/** A signed payment for `path`, as the PAYMENT-SIGNATURE header value. */
async function paymentHeader(url: string, client: x402Client): Promise<string> {
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 402) throw new Error(`expected a 402 challenge from ${url}, got ${res.status}`);
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  return Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString('base64');
}

/** Writes the paid request on a raw socket, destroys it after `dropAfterMs`; the status line that had arrived by then, if any. */
async function sendAndDrop(port: number, path: string, header: string, dropAfterMs: number): Promise<string | null> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let received = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nPAYMENT-SIGNATURE: ${header}\r\n\r\n`);
  await new Promise((resolve) => setTimeout(resolve, dropAfterMs));
  socket.destroy();
  return received === '' ? null : received.slice(0, received.indexOf('\r\n'));
}

/**
 * How a dropped paid request ended for its payer: the retry got the 200 (`recovered`); the 200
 * had already reached the client's socket when it closed, so the retry is a replay and refused
 * (`answered-before-drop`); or the payer got no answer at all (`lost`, with what came instead).
 */
export type DroppedOutcome = { readonly kind: 'recovered' | 'answered-before-drop' } | { readonly kind: 'lost'; readonly answer: string };

/**
 * Pays for `path`, drops the connection `dropAfterMs` later (mid-settlement for a Solana payment
 * waiting for `confirmed`; a Base payment on the local EVM has usually been answered by then),
 * then retries the identical request until the first attempt is done.
 */
export async function droppedPaidCall(target: LocalnetTarget, client: x402Client, path: string, dropAfterMs: number): Promise<DroppedOutcome> {
  const header = await paymentHeader(`${target.serviceUrl}${path}`, client);
  const arrived = await sendAndDrop(target.port, path, header, dropAfterMs);
  const deadline = performance.now() + RETRY_DEADLINE_MS;
  while (performance.now() < deadline) {
    const res = await fetch(`${target.serviceUrl}${path}`, { headers: { 'PAYMENT-SIGNATURE': header } });
    const body = await res.text();
    if (res.status === 200) return { kind: 'recovered' };
    if (res.status === 402 && /this payment was already settled/.test(body) && arrived?.includes(' 200 ')) return { kind: 'answered-before-drop' };
    // Still settling under the first attempt: ask again shortly, as the tests do.
    if (!(res.status === 402 && /being settled by another request|settlement_pending/.test(body)))
      return { kind: 'lost', answer: `${res.status} ${body.slice(0, 160)} (before the drop: ${arrived ?? 'nothing'})` };
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }
  return { kind: 'lost', answer: `still settling after ${RETRY_DEADLINE_MS} ms (before the drop: ${arrived ?? 'nothing'})` };
}
