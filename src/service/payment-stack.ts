/**
 * The payment side of the service: the terms each route charges (which stablecoin, paid to whom,
 * on Solana and Base), the 402 challenges, and the processor that verifies and settles over the
 * Solana exact scheme, the Base one when a settlement path is configured, and any extra schemes.
 */
import { randomUUID } from 'node:crypto';
import { CATALOG } from '../catalog/endpoints.ts';
import { periodResource, STREAM_CATALOG } from '../catalog/streams.ts';
import type { BlockhashCache } from '../chain/solana/blockhash-cache.ts';
import { readEvmKeyFile } from '../chain/keys/evm-key-file.ts';
import type { RpcClient } from '../chain/solana/rpc-client.ts';
import type { SignatureWatch } from '../chain/geyser/signature-watch.ts';
import type { Config } from '../config.ts';
import type { WorkerPool } from '../pool/worker-pool.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ReceiptIssuer } from '../receipts/receipt-issuer.ts';
import { createEarlyAnswers, type EarlyAnswers } from '../x402/exact/early-answers.ts';
import { createEvmRelayer, type EvmRelayer } from '../chain/evm/evm-relayer.ts';
import { claimLookMs, startChannels, type Channels } from '../x402/channels/channel-setup.ts';
import { createPgChannelStore, createPgClaimLease } from '../x402/channels/pg-channel-store.ts';
import { startEvmExactScheme, type EvmSettlement } from '../x402/exact-evm/evm-exact-setup.ts';
import { createReceiptStamp } from '../x402/delivery/paid-delivery.ts';
import type { ExactScheme } from '../x402/types/exact-scheme.ts';
import { createPaymentProcessor, type PaymentProcessor } from '../x402/flow/payment-processor.ts';
import { createChallengeBuilder, type ChallengeBuilder, type PaymentTermsConfig } from '../x402/delivery/payment-terms.ts';
import type { ReplayGuard } from '../x402/stores/replay-guard.ts';
import { createSvmExactScheme } from '../x402/exact-svm/svm-exact.ts';
import { createFeePayerWatch, type FeePayerWatch, lamportsToUnits } from '../x402/exact-svm/svm-fee-payer.ts';
import { LAMPORTS_PER_SIGNATURE, MAX_PAYMENT_COMPUTE_UNITS, MAX_REQUIRED_SIGNATURES } from '../x402/exact-svm/svm-rules.ts';
import { SOLANA_MAINNET_CAIP2 } from '../x402/types/x402-types.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import type { PaymentExtensions } from './extension-stack.ts';
import { channelAuthorizerKey, type PaymentUpstreams } from './payment-terms-setup.ts';
import { openPaymentStores, type Storage } from './storage.ts';

/** Base's chain id (`eip155:8453`); the local EVM serves the same id. */
const BASE_CHAIN_ID = 8453;

/** What the processor is built from; `processor` and `schemes` are the caller's overrides. */
export interface PaymentStackConfig {
  readonly options: Readonly<
    Pick<
      Config,
      | 'dataDir'
      | 'svmCommitment'
      | 'svmMaxPriorityFee'
      | 'settleTimeoutMs'
      | 'svmEarly'
      | 'solPriceUsd'
      | 'facilitatorUrl'
      | 'evmRpcUrl'
      | 'evmRelayerKeyPath'
      | 'evmRpcTimeoutMs'
      | 'facilitatorTimeoutMs'
      | 'channels'
      | 'paymentRecordsMax'
      | 'paymentRecordShares'
      | 'channelsMax'
      | 'channelShares'
    >
  >;
  readonly upstreams: PaymentUpstreams;
  readonly terms: PaymentTermsConfig;
  readonly rpc: RpcClient;
  /** Solana confirmations from the Geyser stream (the RPC is polled without it). */
  readonly signatures?: SignatureWatch | null;
  readonly pool: WorkerPool<PoolTasks>;
  /** Supplies the recent blockhash of Solana challenges. */
  readonly blockhashes: Pick<BlockhashCache, 'current'>;
  readonly receipts: ReceiptIssuer;
  readonly ledger: Pick<Ledger, 'append'>;
  /** Where the replay guard, pending settlements and payment-identifier answers live. */
  readonly storage: Storage;
  /** Replaces the built-in payment processor (null: no payments accepted). */
  readonly processor?: PaymentProcessor | null;
  /** Exact schemes of other networks, registered beside Solana's. */
  readonly schemes?: readonly ExactScheme[];
  /** The x402 extensions of the challenges (bazaar, offers) and of the settlements (the extension receipt). */
  readonly extensions?: PaymentExtensions;
}

/** The challenges by route path, the replay record (the caller closes it), the processor and the payment channels. */
export interface PaymentStack {
  readonly challenges: ReadonlyMap<string, ChallengeBuilder>;
  readonly replayGuard: ReplayGuard;
  readonly processor: PaymentProcessor | null;
  /** The payment channel path when offered (the caller closes it). */
  readonly channels: Channels | null;
  /** The Solana fee payer's balance and fee spend, for /health (the caller closes it). */
  readonly feePayer: FeePayerWatch;
  readonly early: EarlyAnswers;
}

/** The Base settlement path: a remote facilitator, our own relayer, or the local EVM's relayer. */
function evmSettlement(config: PaymentStackConfig['options'], upstreams: PaymentUpstreams): EvmSettlement | null {
  if (config.facilitatorUrl) return { kind: 'facilitator', url: config.facilitatorUrl, rpcUrl: config.evmRpcUrl ?? upstreams.evm?.rpcUrl ?? null };
  if (config.evmRpcUrl && config.evmRelayerKeyPath) return { kind: 'relayer', rpcUrl: config.evmRpcUrl, relayerKey: readEvmKeyFile(config.evmRelayerKeyPath) };
  if (upstreams.evm) return { kind: 'relayer', rpcUrl: upstreams.evm.rpcUrl, relayerKey: upstreams.evm.relayerKey };
  return null;
}

/** The channel path over the Base relayer: vouchers recovered in the pool, receipts as every paid answer gets them. */
function openChannels(config: Readonly<PaymentStackConfig>, challenges: ReadonlyMap<string, ChallengeBuilder>, relayer: EvmRelayer, rpcUrl: string): Channels {
  const { options, pool } = config;
  const requirements = challenges.get(CATALOG[0]!.path)!.accepts.find((a) => a.scheme === 'batch-settlement')!;
  const db = config.storage.database;
  const watch = options.channels!.watchSeconds;
  const fault = (what: string, err: unknown) => console.error(`channels: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  return startChannels({
    rpcUrl,
    rpcTimeoutMs: options.evmRpcTimeoutMs,
    relayer,
    authorizerKey: channelAuthorizerKey(options),
    dataDir: options.dataDir,
    chainId: BASE_CHAIN_ID,
    requirements,
    claimThresholdUnits: options.channels!.claimThresholdUnits,
    claimAgeSeconds: options.channels!.claimAgeSeconds,
    watchSeconds: watch,
    confirmationTimeoutMs: options.settleTimeoutMs,
    recover: (input, signal) => pool.runTask('recoverVoucher', input, signal),
    stamp: createReceiptStamp({ receipts: config.receipts, extensionReceipt: config.extensions?.extensionReceipt, fault }),
    challengeFor: (path) => challenges.get(path)!,
    fault,
    maxChannels: options.channelsMax,
    channelShares: options.channelShares,
    journal: config.storage.journal,
    // With the database every instance serves every channel: the records are rows, and one instance at a time claims.
    shared: db ? { store: createPgChannelStore({ db }), lead: createPgClaimLease({ db, holder: randomUUID(), leaseMs: 3 * claimLookMs(watch) }) } : null,
  });
}

/** Builds the challenges and, unless overridden, the processor (starting the Base scheme when it has a path). */
export async function startPaymentStack(config: Readonly<PaymentStackConfig>): Promise<PaymentStack> {
  const { options, terms, pool } = config;
  // One object per blockhash: the challenges re-render only when it is a new one.
  let extra: { readonly recentBlockhash: string } | null = null;
  const live = {
    svmExtra: () => {
      const b = config.blockhashes.current();
      if (!b) return null;
      if (extra?.recentBlockhash !== b.blockhash) extra = { recentBlockhash: b.blockhash };
      return extra;
    },
  };
  const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, terms, live, config.extensions?.extensionsFor(e))]));
  // A stream's period is paid through the same terms and processor (docs/streams.md); its refusals are built from here too.
  for (const s of STREAM_CATALOG) challenges.set(s.path, createChallengeBuilder(periodResource(s), terms, live));
  const stores = openPaymentStores(config.storage, options);
  // The most one early answer can lose: the ceiling's price and the dearest fee a settlement may cost.
  const dearestFee = LAMPORTS_PER_SIGNATURE * BigInt(MAX_REQUIRED_SIGNATURES) + BigInt(options.svmMaxPriorityFee);
  const early = createEarlyAnswers({
    limits: options.svmEarly,
    store: stores.earlyStore,
    ledger: config.ledger,
    maxRiskUnits: options.svmEarly.ceilingUnits + lamportsToUnits(dearestFee, options.solPriceUsd),
    solPriceUsd: options.solPriceUsd,
  });
  const limits = { maxComputeUnits: MAX_PAYMENT_COMPUTE_UNITS, maxPriorityFeeLamports: options.svmMaxPriorityFee };
  const feePayer = createFeePayerWatch({ address: terms.svm.feePayer, rpc: config.rpc, limits });
  const svm = createSvmExactScheme({
    network: SOLANA_MAINNET_CAIP2,
    feePayer: terms.svm.feePayer,
    rpc: config.rpc,
    pool,
    commitment: options.svmCommitment,
    confirmTimeoutMs: options.settleTimeoutMs,
    signatures: config.signatures ?? null,
    maxPriorityFeeLamports: options.svmMaxPriorityFee,
    onFee: (fee) => feePayer.record(fee),
    // Aborted at close, with the early answers' confirmations.
    stopping: early.signal,
    solPriceUsd: options.solPriceUsd,
  });
  const settlement = evmSettlement(options, config.upstreams);
  // One relayer for both Base schemes: exact settlements and channel transactions share its account nonce.
  const relayer =
    settlement?.kind === 'relayer'
      ? createEvmRelayer({
          rpcUrl: settlement.rpcUrl,
          asset: terms.evm.asset,
          key: settlement.relayerKey,
          chainId: BASE_CHAIN_ID,
          timeoutMs: options.evmRpcTimeoutMs,
        })
      : null;
  const evm = settlement
    ? [
        await startEvmExactScheme({
          asset: terms.evm.asset,
          name: terms.evm.name,
          version: terms.evm.version,
          settlement,
          settleTimeoutMs: options.settleTimeoutMs,
          rpcTimeoutMs: options.evmRpcTimeoutMs,
          facilitatorTimeoutMs: options.facilitatorTimeoutMs,
          // EIP-712 signer recovery is CPU work: it runs in the pool, never on the event loop.
          verifyOffchain: (input, signal) => pool.runTask('verifyEvmExact', input, signal),
          ...(relayer ? { relayer } : {}),
        }),
      ]
    : [];
  const channels =
    relayer && settlement?.kind === 'relayer' && terms.channel && config.processor === undefined
      ? openChannels(config, challenges, relayer, settlement.rpcUrl)
      : null;
  const processor =
    config.processor !== undefined
      ? config.processor
      : createPaymentProcessor({
          schemes: [svm, ...evm, ...(config.schemes ?? [])],
          ...stores,
          recordsMax: options.paymentRecordsMax,
          receipts: config.receipts,
          extensionReceipt: config.extensions?.extensionReceipt,
          challengeFor: (path) => challenges.get(path)!,
          channels,
          early,
        });
  return { challenges, replayGuard: stores.replayGuard, processor, channels, feePayer, early };
}
