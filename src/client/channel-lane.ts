/**
 * The Base payment-channel lane (x402 `batch-settlement`): one deposit, then a cumulative voucher
 * per call. The official `@x402/evm` client scheme is the channel's keeper: it sizes and signs
 * deposits (ERC-3009), holds the channel state in its storage, takes each answer's charge with its
 * own rule (`updateChannelFromSettle`), and resyncs from a corrective 402 (checking the server's
 * voucher against our own key and the chain). The voucher itself, the hot path, is signed here in
 * native code (libsecp256k1 and Keccak, src/chain), byte for byte the official `signVoucher`'s
 * signature at a fraction of its CPU, in the official payload shape.
 *
 * A channel's vouchers carry ceilings one price apart, so its calls go one at a time: a call holds
 * its channel from building the payment until its answer is taken.
 */
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, type ClientChannelStorage, InMemoryClientChannelStorage, updateChannelFromSettle } from '@x402/evm/batch-settlement/client';
import { channelIdOf } from '../chain/evm/evm-channel-typed-data.ts';
import { createVoucherSigner, type VoucherSigner } from '../chain/evm/voucher-signer.ts';
import { evmAccountFromKey, type EvmHexKey } from '../chain/keys/evm-key-file.ts';
import { createEvmPublicClient } from '../chain/evm/evm-token-reader.ts';
import type { HttpAnswer } from './client-http.ts';
import { assetAllowed, assetRefused, type PaymentLane, type Prepared } from './payment-lane.ts';
import type { SpendLedger } from './spend-limits.ts';
import { decodePaymentRequired, decodePaymentResponse, type Terms } from './x402-wire.ts';

export type { ClientChannelStorage };

/** The scheme's corrective refusals: the client's ceiling is off; the 402 carries the state to resync from. */
const CORRECTIVE = new Set(['invalid_batch_settlement_evm_cumulative_amount_mismatch', 'invalid_batch_settlement_evm_cumulative_below_claimed']);

export interface ChannelLaneConfig {
  readonly key: EvmHexKey;
  /** Base RPC the scheme reads channels from (a lost state, a corrective 402); without it, only the server's word resyncs nothing. */
  readonly evmRpcUrl?: string;
  /** Where channel state is kept (default: memory; the official FileClientChannelStorage keeps it across runs). */
  readonly storage?: ClientChannelStorage;
  readonly ledger: SpendLedger;
  readonly anyAsset: boolean;
  /** A deposit's size in calls of the route it is made on (default: what the service asks, its `minDeposit`). */
  readonly depositCalls?: number;
}

class DepositRefused extends Error {}

/** A channel's config and id under a route's terms (the same channel for every route of one service). */
interface Channel {
  readonly config: ReturnType<BatchSettlementEvmScheme['buildChannelConfig']>;
  readonly id: `0x${string}`;
  readonly chainId: number;
  readonly sign: VoucherSigner;
  /** The payload's JSON up to the ceiling's digits: the same for every voucher of the channel. */
  readonly payloadHead: string;
  /** The next voucher, signed while the last call's answer was awaited (its ceiling guessed: one more of the same price). */
  next: { readonly ceiling: bigint; readonly signature: Promise<`0x${string}`> } | null;
}

export function createChannelLane(config: ChannelLaneConfig): PaymentLane {
  const account = evmAccountFromKey(config.key);
  const secret = Buffer.from(config.key.slice(2), 'hex');
  const signer = config.evmRpcUrl ? toClientEvmSigner(account, createEvmPublicClient(config.evmRpcUrl) as never) : account;
  const storage = config.storage ?? new InMemoryClientChannelStorage();
  const cap = config.ledger.depositCap;
  const scheme = new BatchSettlementEvmScheme(signer, {
    storage,
    // The official sizing (the service's announced minDeposit), bounded by the client's deposit limit.
    depositStrategy: ({ depositAmount, minimumDepositAmount, requestAmount }) => {
      const wanted = config.depositCalls === undefined ? BigInt(depositAmount) : BigInt(requestAmount) * BigInt(config.depositCalls);
      const deposit = wanted > BigInt(minimumDepositAmount) ? wanted : BigInt(minimumDepositAmount);
      if (deposit <= cap) return deposit;
      const refused = config.ledger.checkDeposit(BigInt(minimumDepositAmount));
      if (refused) throw new DepositRefused(refused.message);
      return cap;
    },
  });
  const channels = new WeakMap<Terms, Channel>();
  const queues = new Map<string, Promise<void>>();

  function channelOf(terms: Terms): Channel {
    let channel = channels.get(terms);
    if (!channel) {
      const chainId = Number(terms.network.slice('eip155:'.length));
      const channelConfig = scheme.buildChannelConfig(terms as never);
      const id = channelIdOf(channelConfig, chainId) as `0x${string}`;
      const payloadHead = `{"type":"voucher","channelConfig":${JSON.stringify(channelConfig)},"voucher":{"channelId":"${id}","maxClaimableAmount":"`;
      channel = { config: channelConfig, id, chainId, sign: createVoucherSigner(id, chainId, secret), payloadHead, next: null };
      channels.set(terms, channel);
    }
    return channel;
  }

  /** Waits for the channel's previous call; resolves to the function that lets the next one go. */
  async function hold(id: string): Promise<() => void> {
    const before = queues.get(id) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    queues.set(id, tail);
    await before;
    return () => {
      if (queues.get(id) === tail) queues.delete(id);
      release();
    };
  }

  /** A voucher for `ceiling`, signed here; or the official scheme's payment (a deposit, or a voucher after recovering the state from the chain). */
  async function build(terms: Terms, channel: Channel, ceiling: bigint | null): Promise<{ payload: Readonly<Record<string, unknown>>; payloadJson?: string }> {
    if (ceiling === null) return { payload: (await scheme.createPaymentPayload(2, terms as never)).payload };
    const next = channel.next;
    channel.next = null;
    const signature = await (next?.ceiling === ceiling ? next.signature : channel.sign(ceiling));
    const amount = ceiling.toString();
    // Signing the likely next voucher waits until this request is written, then runs while its answer is awaited.
    const following = ceiling + BigInt(terms.amount);
    setImmediate(() => {
      if (channel.next) return;
      const presigned = channel.sign(following);
      // Awaited only if the guess holds; a ceiling past uint128 is refused then, not as an unhandled rejection now.
      presigned.catch(() => undefined);
      channel.next = { ceiling: following, signature: presigned };
    });
    return {
      payload: { type: 'voucher', channelConfig: channel.config, voucher: { channelId: channel.id, maxClaimableAmount: amount, signature } },
      payloadJson: `${channel.payloadHead}${amount}","signature":"${signature}"}}`,
    };
  }

  /** Takes the answer's charge (a 200) or resyncs from a corrective 402. */
  async function take(terms: Terms, channel: Channel, depositUnits: bigint, answer: HttpAnswer | null): Promise<boolean> {
    if (answer?.status === 200) {
      const settled = decodePaymentResponse(answer.headers['payment-response']);
      if (!settled?.success) return false;
      const chargedAmount = settled.extra?.chargedAmount;
      const state = settled.extra?.channelState as { chargedCumulativeAmount?: unknown } | undefined;
      const cumulative = state?.chargedCumulativeAmount;
      if (depositUnits > 0n) config.ledger.deposited(depositUnits);
      const local = { channelId: channel.id, requestAmount: terms.amount, ...(depositUnits > 0n ? { depositAmount: depositUnits.toString() } : {}) };
      const server = {
        chargedAmount: typeof chargedAmount === 'string' ? chargedAmount : undefined,
        chargedCumulativeAmount: typeof cumulative === 'string' ? cumulative : undefined,
      };
      // The official rule takes the charge. A charge it refuses (above the price, not a number) is
      // not taken, but a deposit's money is (it moved): the next voucher's ceiling is then off, and
      // its corrective 402 resyncs from a voucher we signed.
      await updateChannelFromSettle(storage, { server, local }).catch(() => updateChannelFromSettle(storage, { server: {}, local }));
      return false;
    }
    if (answer?.status !== 402) return false;
    const challenge = decodePaymentRequired(answer.headers['payment-required']);
    if (!challenge?.error || !CORRECTIVE.has(challenge.error)) return false;
    // The scheme checks the server's voucher against our own key and the chain; a check it cannot make is no resync.
    return scheme.processCorrectivePaymentRequired(challenge as never).catch(() => false);
  }

  return {
    name: 'base-channel',
    pick: (accepts) => accepts.find((t) => t.scheme === 'batch-settlement' && t.network.startsWith('eip155:')) ?? null,
    async prepare(terms): Promise<Prepared> {
      if (!assetAllowed(terms, config.anyAsset, scheme.findDefaultAsset as never)) return assetRefused(terms);
      const channel = channelOf(terms);
      const release = await hold(channel.id);
      try {
        const state = await storage.get(channel.id);
        const balance = BigInt(state?.balance ?? '0');
        const ceiling = BigInt(state?.chargedCumulativeAmount ?? '0') + BigInt(terms.amount);
        const { payload, payloadJson } = await build(terms, channel, balance > 0n && ceiling <= balance ? ceiling : null);
        const deposit = (payload as { type?: unknown; deposit?: { amount?: unknown } }).deposit?.amount;
        const depositUnits = payload.type === 'deposit' && typeof deposit === 'string' ? BigInt(deposit) : 0n;
        let finished = false;
        const finish = async (answer: HttpAnswer | null) => {
          if (finished) return { resynced: false };
          finished = true;
          try {
            return { resynced: await take(terms, channel, depositUnits, answer) };
          } finally {
            release();
          }
        };
        return { ok: true, payment: { payload, ...(payloadJson === undefined ? {} : { payloadJson }), depositUnits, finish } };
      } catch (err) {
        release();
        if (err instanceof DepositRefused) return { ok: false, reason: 'deposit_above_limit', message: err.message };
        throw err;
      }
    },
  };
}
