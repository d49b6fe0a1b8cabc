/**
 * Turns accepted vouchers into money, in the background: claims the latest voucher of many
 * channels in one `claimWithSignature` transaction when the unclaimed value or the age of the
 * oldest unclaimed charge crosses its threshold, or at once when a payer started a timed
 * withdrawal (we must claim before its delay ends), then sweeps the claimed funds to our receiver
 * with one `settle`. It also keeps the mirror of each owing channel's on-chain state fresh, which
 * is how a withdrawal is noticed.
 *
 * One channel whose claim reverts (a smart-wallet payer whose signature no longer holds, a voucher
 * over what a finished withdrawal left) makes its whole batch revert. A batch whose simulation
 * reverts is split in halves, each tried again, down to the one channel at fault, which is
 * quarantined (it takes no more calls, and is shown in the status) while every other is claimed.
 * Any other failure (the RPC, a receipt that did not come) leaves the batch for the next look.
 */
import { type ChannelFacilitator, claimEntry } from './channel-facilitator.ts';
import { CHANNEL_ANSWER_KEEP_MS, type ChannelRecord, type ChannelStore, type ChannelSummary, unclaimedOf, updateChannel } from './channel-store.ts';
import type { KeyedQueue } from './keyed-queue.ts';
import { plainReason } from '../delivery/reason-messages.ts';
import type { PaymentRequirements } from '../types/x402-types.ts';

/** Channels claimed in one transaction at most (gas grows with each row). */
export const MAX_CLAIMS_PER_TX = 50;
/** Owing channels re-read per look at most (bounds the RPC reads of one tick). */
const MAX_READS_PER_TICK = 200;
/** Owing channels one look claims at most (the rest wait for the next look). */
const MAX_OWING_PER_LOOK = 2_000;
/** Quarantined channels the status lists by id at most (all are counted). */
const MAX_QUARANTINED_LISTED = 20;
/** The facilitator's reason for a claim whose simulation failed (the chain refused it before anything was sent). */
const CLAIM_SIMULATION_FAILED = 'invalid_batch_settlement_evm_claim_simulation_failed';

export interface ChannelClaimerConfig {
  readonly store: ChannelStore;
  readonly facilitator: ChannelFacilitator;
  readonly queue: KeyedQueue;
  /** A channel option of our terms: its network, asset (token) and payTo (receiver). */
  readonly requirements: PaymentRequirements;
  /** Claim when all channels together owe at least this, token units. */
  readonly thresholdUnits: bigint;
  /** ...or when the oldest unclaimed charge is this old, ms. */
  readonly maxAgeMs: number;
  /** How often to look, ms. */
  readonly intervalMs: number;
  /** How often an owing channel's on-chain state is read again, ms (how a timed withdrawal is noticed). */
  readonly watchMs: number;
  readonly fault: (what: string, err: unknown) => void;
  readonly now?: () => number;
  /**
   * Whether this instance is the one that claims now (instances sharing a database take turns by
   * lease: two claiming one channel at once would only waste gas). Absent: always.
   */
  readonly lead?: () => Promise<boolean>;
}

/** What `/health` shows of the channels: open, unclaimed units (charged, not yet claimed on chain), pending withdrawals, and the claimer's last work. */
export interface ChannelStatus extends ChannelSummary {
  readonly lastClaim: { readonly at: string; readonly transaction: string; readonly channels: number; readonly units: string } | null;
  readonly lastSweep: { readonly at: string; readonly transaction: string; readonly units: string } | null;
  readonly lastError: string | null;
  /** Channels whose claim reverted on its own, as of the last look: they take no more calls. */
  readonly quarantined: { readonly count: number; readonly channels: readonly QuarantinedChannel[] };
}

export interface QuarantinedChannel {
  readonly channelId: string;
  readonly since: string;
  readonly reason: string;
  /** What it owes us that could not be claimed, token units. */
  readonly unclaimedUnits: string;
}

/** Whether a failed claim says the chain refused the batch itself (a revert), not that it could not be asked. */
export function claimReverted(failure: { readonly reason: string; readonly message: string }): boolean {
  return failure.reason === CLAIM_SIMULATION_FAILED && /revert/i.test(failure.message);
}

export interface ChannelClaimer {
  /** One look: refresh owing channels, claim and sweep when due (or `force`d). Concurrent calls share one run. */
  tick(force?: boolean): Promise<void>;
  status(): ChannelStatus;
  start(): void;
  /** Stops looking; resolves when a look under way has finished. */
  stop(): Promise<void>;
}

/** Creates the claimer (not started). */
export function createChannelClaimer(config: ChannelClaimerConfig): ChannelClaimer {
  const { store, facilitator, queue } = config;
  const now = config.now ?? Date.now;
  let lastClaim: ChannelStatus['lastClaim'] = null;
  let lastSweep: ChannelStatus['lastSweep'] = null;
  let lastError: string | null = null;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let summary: ChannelSummary = { open: 0, unclaimedUnits: '0', withdrawalsPending: 0 };
  let quarantined: ChannelStatus['quarantined'] = { count: 0, channels: [] };
  let quarantinedThisLook = 0;

  const owing = () => store.owing(MAX_OWING_PER_LOOK);
  const update = (id: string, change: (current: ChannelRecord) => ChannelRecord) => updateChannel(store, id, change);
  // /health shows what failed and our reason code; the library's message (a viem error names the RPC URL) goes to the log.
  const failed = (what: string, reason: string, message = '') => {
    lastError = `${what}: ${plainReason(reason, 'failed')}`;
    config.fault(what, new Error(`${reason} ${message}`.trim()));
  };

  async function refresh(rows: [string, ChannelRecord][]): Promise<void> {
    const stale = rows.filter(([, r]) => now() - r.syncedAt >= config.watchMs).slice(0, MAX_READS_PER_TICK);
    await Promise.all(
      stale.map(([id]) =>
        queue.run(id, async () => {
          const onchain = await facilitator.read(id);
          await update(id, (current) => ({ ...current, onchain, syncedAt: now() }));
        }),
      ),
    );
  }

  /** Marks each row's voucher published before the claim that makes it public goes out (channel-signer-proof.ts). */
  async function markPublished(rows: [string, ChannelRecord][]): Promise<void> {
    for (const [id, r] of rows) {
      const published = (current: ChannelRecord) =>
        BigInt(current.published ?? '0') >= BigInt(r.signedMax) ? current : { ...current, published: r.signedMax };
      await queue.run(id, () => update(id, published));
    }
  }

  /** Claims the rows in one transaction; on a revert, each half alone, down to the channel at fault. Resolves to the units claimed. */
  async function claimBatch(rows: [string, ChannelRecord][]): Promise<bigint> {
    await markPublished(rows);
    const claims = rows.map(([, r]) => claimEntry(r.config, r.signedMax, r.signature, r.charged));
    const done = await facilitator.claim(claims, config.requirements);
    if (!done.ok) {
      if (!claimReverted(done)) {
        failed('channel claim failed', done.reason, done.message);
        return 0n;
      }
      if (rows.length === 1) return quarantine(rows[0]!, done.reason, done.message).then(() => 0n);
      const half = Math.ceil(rows.length / 2);
      return (await claimBatch(rows.slice(0, half))) + (await claimBatch(rows.slice(half)));
    }
    let units = 0n;
    for (const [id, claimed] of rows) {
      units += unclaimedOf(claimed);
      await queue.run(id, () =>
        update(id, (current) => {
          // Never below the mirror: a refund's own claim row may have landed past this batch's row meanwhile.
          const total = BigInt(current.onchain.totalClaimed) > BigInt(claimed.charged) ? current.onchain.totalClaimed : claimed.charged;
          return { ...current, onchain: { ...current.onchain, totalClaimed: total }, unclaimedSince: BigInt(current.charged) > BigInt(total) ? now() : 0 };
        }),
      );
    }
    lastClaim = { at: new Date(now()).toISOString(), transaction: done.transaction, channels: rows.length, units: units.toString() };
    return units;
  }

  /** The channel's claim reverts on its own: it takes no more calls and is left out of claims. */
  async function quarantine([id]: [string, ChannelRecord], reason: string, message: string): Promise<void> {
    failed(`channel ${id} quarantined: its claim reverts`, reason, message);
    quarantinedThisLook++;
    await queue.run(id, () => update(id, (current) => (current.quarantined ? current : { ...current, quarantined: { at: now(), reason } })));
  }

  /** The status's view of the quarantined channels among the owing ones. */
  function noteQuarantined(rows: [string, ChannelRecord][]): void {
    const held = rows.filter(([, r]) => r.quarantined);
    const channels = held.slice(0, MAX_QUARANTINED_LISTED).map(([channelId, r]) => ({
      channelId,
      since: new Date(r.quarantined!.at).toISOString(),
      reason: r.quarantined!.reason,
      unclaimedUnits: unclaimedOf(r).toString(),
    }));
    quarantined = { count: held.length, channels };
  }

  /** Lets go of the last answers whose retry window is over (a record per idle channel, written once). */
  async function forgetIdleAnswers(): Promise<void> {
    const before = now() - CHANNEL_ANSWER_KEEP_MS;
    for (const id of store.idleAnswers(before, MAX_OWING_PER_LOOK)) {
      await queue.run(id, () => update(id, (r) => (r.last && r.lastRequestAt < before ? { ...r, last: null } : r)));
    }
  }

  async function look(force: boolean): Promise<void> {
    quarantinedThisLook = 0;
    await forgetIdleAnswers();
    if (config.lead && !(await config.lead())) return;
    const open = (rows: [string, ChannelRecord][]) => rows.filter(([, r]) => !r.quarantined);
    await refresh(open(await owing()));
    const all = await owing();
    noteQuarantined(all);
    const rows = open(all);
    if (rows.length === 0) return;
    const total = rows.reduce((sum, [, r]) => sum + unclaimedOf(r), 0n);
    const oldest = Math.min(...rows.map(([, r]) => r.unclaimedSince || now()));
    const withdrawing = rows.some(([, r]) => r.onchain.withdrawRequestedAt !== 0);
    if (!(force || withdrawing || total >= config.thresholdUnits || now() - oldest >= config.maxAgeMs)) return;
    let claimed = 0n;
    for (let i = 0; i < rows.length; i += MAX_CLAIMS_PER_TX) claimed += await claimBatch(rows.slice(i, i + MAX_CLAIMS_PER_TX));
    // The channels quarantined by this look are shown now, not at the next one.
    if (quarantinedThisLook > 0) noteQuarantined(await owing());
    if (claimed === 0n) return;
    const swept = await facilitator.sweep(config.requirements);
    if (!swept.ok) return failed('channel sweep failed', swept.reason, swept.message);
    lastSweep = { at: new Date(now()).toISOString(), transaction: swept.transaction, units: swept.amount };
    lastError = null;
  }

  return {
    tick(force = false): Promise<void> {
      // A forced look waits for an ordinary one under way, then runs itself.
      if (running && force) return running.then(() => this.tick(true));
      running ??= look(force)
        .catch((err: unknown) => failed('channel claims', 'unexpected_error', err instanceof Error ? err.message : String(err)))
        .finally(() => {
          running = null;
        });
      return running;
    },
    status() {
      // The file log answers at once; the database's answer is shown from the next look on.
      const fresh = store.summary();
      if (fresh instanceof Promise) void fresh.then((s) => (summary = s)).catch(() => undefined);
      else summary = fresh;
      return { ...summary, lastClaim, lastSweep, lastError, quarantined };
    },
    start() {
      timer ??= setInterval(() => void this.tick(), config.intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      return running ?? Promise.resolve();
    },
  };
}
