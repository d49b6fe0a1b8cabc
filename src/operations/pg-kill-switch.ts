/**
 * The operator kill switch in PostgreSQL, so a stop applies to every instance
 * (docs/scaling.md#schema): one row of `kill_switch`. A transition locks the row
 * (select ... for update, so two operators on two instances append one audit entry), appends the
 * audit entry durably, updates the row and notifies `kill_switch`, all in one transaction: the
 * state changes only with an audit entry behind it, as with the file.
 *
 * `isActive()` stays a field read on every paid call: each instance keeps the last state it read,
 * refreshed at once by the notification and every KILL_SWITCH_POLL_MS besides (a notification
 * lost with a dropped connection). While the database cannot be read the last state stands.
 */
import { ServiceError } from '../errors.ts';
import type { PgClient, PgQuery } from '../postgres/pg-client.ts';
import { createOneAtATime, KILL_SWITCH_EVENTS, type KillSwitch, type KillSwitchState, type KillSwitchTransition, switchOver } from './kill-switch.ts';
import type { Ledger } from '../ledger/ledger.ts';

/** The notification channel of transitions. */
export const KILL_SWITCH_CHANNEL = 'kill_switch';
/** The longest another instance's transition goes unseen when its notification was lost. */
export const KILL_SWITCH_POLL_MS = 1_000;

export interface PgKillSwitchConfig {
  readonly db: Pick<PgClient, 'query' | 'transaction' | 'listen'>;
  readonly ledger: Pick<Ledger, 'append'>;
  readonly now?: () => Date;
  readonly pollMs?: number;
}

type StateRow = {
  readonly active: boolean;
  readonly since: string | null;
  readonly reason: string | null;
  readonly ledger_index: number | null;
};

const SELECT = 'select active, since, reason, ledger_index from kill_switch where id = 1';

async function readState(db: PgQuery, lock = false): Promise<KillSwitchState> {
  const [row] = await db.query<StateRow>(lock ? `${SELECT} for update` : SELECT);
  // The migration inserts the row; without it the schema was changed by hand.
  if (!row) throw new ServiceError('internal_error', 'the kill_switch row is missing from the database; re-create it (id 1, active false)');
  return Object.freeze({ active: row.active, since: row.since, reason: row.reason, ledgerIndex: row.ledger_index });
}

/** Reads the shared state, then follows it; `close()` stops following. */
export async function openPgKillSwitch(config: Readonly<PgKillSwitchConfig>): Promise<KillSwitch> {
  const { db } = config;
  const now = config.now ?? (() => new Date());
  let current = await readState(db);
  const refresh = (): void => {
    readState(db).then(
      (s) => {
        current = s;
      },
      () => undefined, // the database is away: the last state stands, the next poll tries again
    );
  };
  const unlisten = await db.listen(KILL_SWITCH_CHANNEL, refresh);
  const timer = setInterval(refresh, config.pollMs ?? KILL_SWITCH_POLL_MS);
  timer.unref();
  // Transitions of this instance run one at a time; the row lock orders them across instances.
  const oneAtATime = createOneAtATime();

  const transition = (active: boolean, reason: string | undefined): Promise<KillSwitchTransition> => {
    const run = async (): Promise<KillSwitchTransition> => {
      const result = await db.transaction(async (tx): Promise<KillSwitchTransition> => {
        const state = await readState(tx, true);
        if (state.active === active) return { state, changed: false };
        const event = active ? KILL_SWITCH_EVENTS.activated : KILL_SWITCH_EVENTS.released;
        const appended = await config.ledger.append(reason === undefined ? { kind: 'audit', event } : { kind: 'audit', event, reason });
        const next: KillSwitchState = Object.freeze({ active, since: now().toISOString(), reason: reason ?? null, ledgerIndex: appended.index });
        await tx.query('update kill_switch set active = $1, since = $2, reason = $3, ledger_index = $4 where id = 1', [
          next.active,
          next.since,
          next.reason,
          next.ledgerIndex,
        ]);
        await tx.query('select pg_notify($1, $2)', [KILL_SWITCH_CHANNEL, active ? 'activated' : 'released']);
        return { state: next, changed: true };
      });
      current = result.state;
      return result;
    };
    return oneAtATime(run);
  };

  return {
    ...switchOver(() => current, transition),
    async close() {
      clearInterval(timer);
      await unlisten().catch(() => undefined);
    },
  };
}
