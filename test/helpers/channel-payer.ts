/**
 * A payer of our payment channels with the OFFICIAL @x402/evm batch-settlement client (through
 * @x402/fetch), funded on a local EVM, plus hand-made voucher payments for the refusal tests:
 * vouchers signed with the official `signVoucher`, channel ids from the official `computeChannelId`.
 */
import { BATCH_SETTLEMENT_ADDRESS, type LocalEvm } from '@solana-x402-intel/localnet';
import type { PaymentRequirements } from '@x402/core/types';
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { evmAccountFromKey, evmAddressOfKey, type EvmHexKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';

export const BASE = 'eip155:8453';
/** The channel contract's canonical address, as the localnet places it. */
export const CHANNEL_CONTRACT = BATCH_SETTLEMENT_ADDRESS;
/** Service options that keep the claimer from claiming on its own: a test claims when it means to. */
export const NO_AUTOMATIC_CLAIM = ['--channel-claim-threshold', '999999999', '--channel-claim-age', '999999'];

/** A funded payer with its official client; `lastPayment` is the last PAYMENT-SIGNATURE it sent. */
export interface ChannelPayer {
  readonly key: EvmHexKey;
  readonly address: string;
  readonly scheme: BatchSettlementEvmScheme;
  readonly pay: typeof fetch;
  lastPayment: string | null;
}

/**
 * A payer funded with `usdc` units (none when 0) whose deposits are `deposit` units each; with
 * `key` and `salt`, one more channel of an existing payer (the channel id changes with the salt);
 * its requests go through `fetch` (the global fetch, read per request, by default).
 */
export async function channelPayer(
  evm: Pick<LocalEvm, 'fundUsdc' | 'usdcAddress'>,
  usdc: bigint,
  deposit: bigint,
  channel: { readonly key?: EvmHexKey; readonly salt?: `0x${string}`; readonly fetch?: typeof fetch } = {},
): Promise<ChannelPayer> {
  const key = channel.key ?? generateEvmKey();
  if (usdc > 0n) await evm.fundUsdc(evmAddressOfKey(key), usdc);
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  const scheme = new BatchSettlementEvmScheme(evmAccountFromKey(key), {
    depositStrategy: () => deposit.toString(),
    ...(channel.salt ? { salt: channel.salt } : {}),
  });
  client.register('eip155:*', scheme);
  const payer: ChannelPayer = { key, address: evmAddressOfKey(key), scheme, pay: fetch, lastPayment: null };
  const recording: typeof fetch = async (input, init) => {
    const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('payment-signature');
    if (header) payer.lastPayment = header;
    return (channel.fetch ?? fetch)(input, init);
  };
  (payer as { pay: typeof fetch }).pay = wrapFetchWithPayment(recording, client) as typeof fetch;
  return payer;
}

/** The x402 PaymentRequired a 402 carries in its PAYMENT-REQUIRED header (its body is only a short error). */
export function challengeOf(res: Response): { error?: string; accepts: PaymentRequirements[] } {
  return JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8')) as { error?: string; accepts: PaymentRequirements[] };
}

/** The channel option of a route's 402. */
export async function channelTerms(url: string): Promise<PaymentRequirements> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return challengeOf(res).accepts.find((a) => a.scheme === 'batch-settlement')!;
}

/** The payer's channel config and id under `terms`. */
export function channelOf(payer: ChannelPayer, terms: PaymentRequirements) {
  const config = payer.scheme.buildChannelConfig(terms);
  return { config, channelId: computeChannelId(config, BASE) };
}

/** A `voucher` payment header: `signer` signs a ceiling of `max` for `channelId`, sent with `config`. */
export async function voucherHeader(terms: PaymentRequirements, signer: EvmHexKey, config: unknown, channelId: `0x${string}`, max: bigint): Promise<string> {
  const voucher = await signVoucher(evmAccountFromKey(signer), channelId, max.toString(), BASE);
  const payment = { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher } };
  return Buffer.from(JSON.stringify(payment)).toString('base64');
}

/** A 402's error code (its body's) and the options of its PAYMENT-REQUIRED. */
export async function refusalOf(res: Response): Promise<{ error: string; accepts: PaymentRequirements[] }> {
  const body = (await res.json()) as { error: string };
  return { error: body.error, accepts: challengeOf(res).accepts };
}
