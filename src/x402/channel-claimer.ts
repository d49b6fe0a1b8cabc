/**
 * Turns accepted vouchers into money, in the background: claims the latest voucher of many
 * channels in one `claimWithSignature` transaction when the unclaimed value or the age of the
 * oldest unclaimed charge crosses its threshold, or at once when a payer started a timed
 * withdrawal (we must claim before its delay ends), then sweeps the claimed funds to our receiver
 * with one `settle`. It also keeps the mirror of each owing channel's on-chain state fresh, which
 * is how a withdrawal is noticed.
 */
import { type ChannelFacilitator, claimEntry } from './channel-facilitator.ts';
import { CHANNEL_ANSWER_KEEP_MS, type ChannelRecord, type ChannelStore, type ChannelSummary, unclaimedOf, updateChannel } from './channel-store.ts';
import type { KeyedQueue } from './keyed-queue.ts';
import { plainReason } from './reason-messages.ts';
import type { PaymentRequirements } from './x402-types.ts';

/** Channels claimed in one transaction at most (gas grows with each row). */
export const MAX_CLAIMS_PER_TX = 50;
/** Owing channels re-read per look at most (bounds the RPC reads of one tick). */
const MAX_READS_PER_TICK = 200;
/** Owing channels one look claims at most (the rest wait for the next look). */
const MAX_OWING_PER_LOOK = 2_000;

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

  const owing = () => store.owing(MAX_OWING_PER_LOOK);
  const update = (id: string, change: (current: ChannelRecord) => ChannelRecord) => updateChannel(store, id, change);
  // /health shows what failed in our words and the reason code; the facilitator's text (a viem error names the RPC URL) goes to the log.
  const failed = (what: string, message: string, reason?: string) => {
    lastError = reason === undefined ? what : `${what}: ${plainReason(reason, 'failed')}`;
    config.fault(what, new Error(reason === undefined ? message : `${reason} ${message}`.trim()));
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

  async function claimBatch(rows: [string, ChannelRecord][]): Promise<bigint> {
    const claims = rows.map(([, r]) => claimEntry(r.config, r.signedMax, r.signature, r.charged));
    const done = await facilitator.claim(claims, config.requirements);
    if (!done.ok) {
      failed('channel claim failed', done.message, done.reason);
      return 0n;
    }
    let units = 0n;
    for (const [id, claimed] of rows) {
      units += unclaimedOf(claimed);
      await queue.run(id, () =>
        update(id, (current) => {
          const onchain = { ...current.onchain, totalClaimed: claimed.charged };
          return { ...current, onchain, unclaimedSince: BigInt(current.charged) > BigInt(claimed.charged) ? now() : 0 };
        }),
      );
    }
    lastClaim = { at: new Date(now()).toISOString(), transaction: done.transaction, channels: rows.length, units: units.toString() };
    return units;
  }

  /** Lets go of the last answers whose retry window is over (a record per idle channel, written once). */
  async function forgetIdleAnswers(): Promise<void> {
    const before = now() - CHANNEL_ANSWER_KEEP_MS;
    for (const id of store.idleAnswers(before, MAX_OWING_PER_LOOK)) {
      await queue.run(id, () => update(id, (r) => (r.last && r.lastRequestAt < before ? { ...r, last: null } : r)));
    }
  }

  async function look(force: boolean): Promise<void> {
    await forgetIdleAnswers();
    if (config.lead && !(await config.lead())) return;
    await refresh(await owing());
    const rows = await owing();
    if (rows.length === 0) return;
    const total = rows.reduce((sum, [, r]) => sum + unclaimedOf(r), 0n);
    const oldest = Math.min(...rows.map(([, r]) => r.unclaimedSince || now()));
    const withdrawing = rows.some(([, r]) => r.onchain.withdrawRequestedAt !== 0);
    if (!(force || withdrawing || total >= config.thresholdUnits || now() - oldest >= config.maxAgeMs)) return;
    let claimed = 0n;
    for (let i = 0; i < rows.length; i += MAX_CLAIMS_PER_TX) claimed += await claimBatch(rows.slice(i, i + MAX_CLAIMS_PER_TX));
    if (claimed === 0n) return;
    const swept = await facilitator.sweep(config.requirements);
    if (!swept.ok) return failed('channel sweep failed', swept.message, swept.reason);
    lastSweep = { at: new Date(now()).toISOString(), transaction: swept.transaction, units: swept.amount };
    lastError = null;
  }

  return {
    tick(force = false): Promise<void> {
      // A forced look waits for an ordinary one under way, then runs itself.
      if (running && force) return running.then(() => this.tick(true));
      running ??= look(force)
        .catch((err: unknown) => failed('channel claims', err instanceof Error ? err.message : String(err)))
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
      return { ...summary, lastClaim, lastSweep, lastError };
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
