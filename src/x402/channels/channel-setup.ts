/**
 * Assembles the payment channel path (x402 `batch-settlement` on Base) from its parts: the
 * channel chain over our relayer and receiver authorizer key, the facilitator code, the durable
 * channel log under the data dir, the per-request state machine and the background claimer.
 */
import { createEvmChannelChain } from '../../chain/evm/evm-channel-chain.ts';
import type { VoucherCheck, VoucherToRecover } from '../../chain/evm/evm-channel-typed-data.ts';
import type { EvmHexKey } from '../../chain/keys/evm-key-file.ts';
import type { EvmRelayer } from '../../chain/evm/evm-relayer.ts';
import { createChannelClaimer, type ChannelClaimer } from './channel-claimer.ts';
import { createChannelFacilitator } from './channel-facilitator.ts';
import { CHANNEL_SYNC_MAX_AGE_MS, createChannelMachine, type ChannelMachine } from './channel-machine.ts';
import type { CommitJournal } from '../../durable/commit-journal.ts';
import { createChannelStore, type ChannelStore } from './channel-store.ts';
import type { ReceiptStamp } from '../delivery/paid-delivery.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import type { PaymentRequirements, SupportedKind } from '../types/x402-types.ts';
import type { ShareLimits } from '../stores/record-shares.ts';

/** How often the claimer looks at what is owed, ms (more often when channels are watched more often). */
export const CHANNEL_CLAIM_LOOK_MS = 5_000;

/** The claimer's look interval for a watch of `watchSeconds`. */
export function claimLookMs(watchSeconds: number): number {
  return Math.min(CHANNEL_CLAIM_LOOK_MS, watchSeconds * 1000);
}

export interface ChannelSetup {
  readonly rpcUrl: string;
  /** Per-request wait of the Base RPC reads, ms (default the reader's). */
  readonly rpcTimeoutMs?: number;
  readonly relayer: EvmRelayer;
  readonly authorizerKey: EvmHexKey;
  readonly dataDir: string;
  readonly chainId: number;
  /** The channel option of our terms (any route's: network, token and receiver are the same). */
  readonly requirements: PaymentRequirements;
  readonly claimThresholdUnits: number;
  readonly claimAgeSeconds: number;
  readonly watchSeconds: number;
  /** How long a deposit, claim, sweep or refund transaction may take to confirm, ms. */
  readonly confirmationTimeoutMs: number;
  readonly recover: (input: VoucherToRecover, signal: AbortSignal) => Promise<VoucherCheck>;
  readonly stamp: ReceiptStamp;
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly fault: (what: string, err: unknown) => void;
  /** Where the channel records live; default the data dir's log. With the database: its store and its claim lease. */
  readonly shared?: { readonly store: ChannelStore; readonly lead: () => Promise<boolean> } | null;
  /** Channels the data dir's log holds at most (new ones are refused beyond it; none owing is dropped). */
  readonly maxChannels?: number;
  /** Channels one payer, and one client address, may hold in the data dir's log. */
  readonly channelShares?: ShareLimits;
  /** The data directory's commit journal: the log's writes ride in the paid calls' commits. */
  readonly journal?: CommitJournal | null;
}

/** The running channel path. */
export interface Channels {
  readonly machine: ChannelMachine;
  readonly claimer: ChannelClaimer;
  readonly store: ChannelStore;
  /** The `/facilitator/supported` kind and its signers. */
  readonly kind: SupportedKind;
  readonly signers: readonly string[];
  /** Stops the claimer and waits for its run and the log's writes. */
  close(): Promise<void>;
}

/** Opens the channel log and starts the claimer. */
export function startChannels(setup: ChannelSetup): Channels {
  const chain = createEvmChannelChain({ rpcUrl: setup.rpcUrl, timeoutMs: setup.rpcTimeoutMs, relayer: setup.relayer, authorizerKey: setup.authorizerKey });
  const facilitator = createChannelFacilitator(chain, setup.confirmationTimeoutMs, setup.chainId);
  const store =
    setup.shared?.store ??
    createChannelStore({
      dir: setup.dataDir,
      ...(setup.maxChannels ? { maxEntries: setup.maxChannels } : {}),
      ...(setup.channelShares ? { shares: setup.channelShares } : {}),
      ...(setup.journal ? { journal: setup.journal } : {}),
    });
  const machine = createChannelMachine({
    store,
    facilitator,
    recover: setup.recover,
    stamp: setup.stamp,
    challengeFor: setup.challengeFor,
    chainId: setup.chainId,
    fault: setup.fault,
    // A shorter watch is an operator asking for a fresher view of the chain: vouchers get it too.
    mirrorMaxAgeMs: Math.min(CHANNEL_SYNC_MAX_AGE_MS, setup.watchSeconds * 1000),
    shared: Boolean(setup.shared),
  });
  const claimer = createChannelClaimer({
    store,
    facilitator,
    queue: machine.queue,
    requirements: setup.requirements,
    thresholdUnits: BigInt(setup.claimThresholdUnits),
    maxAgeMs: setup.claimAgeSeconds * 1000,
    intervalMs: claimLookMs(setup.watchSeconds),
    watchMs: setup.watchSeconds * 1000,
    fault: setup.fault,
    ...(setup.shared ? { lead: setup.shared.lead } : {}),
  });
  claimer.start();
  const network = setup.requirements.network;
  return {
    machine,
    claimer,
    store,
    kind: { x402Version: 2, scheme: 'batch-settlement', network, extra: { receiverAuthorizer: facilitator.receiverAuthorizer } },
    signers: facilitator.signers,
    async close() {
      await claimer.stop();
      await store.flush();
    },
  };
}
