/**
 * The reconciliation record of settled answers whose ledger entry could not be appended (the
 * ledger's disk or database refused it after the money moved). The answer still goes out; its
 * entry waits here, written and fsync'd to a JSON-lines file before the answer leaves, and is
 * appended (with a fresh receipt for its slot) as soon as the ledger takes writes again, oldest
 * first, on every `drain`. While anything waits, new paid calls are refused (trust-stack.ts
 * `paidCallsStopped`): no payment is taken that the ledger cannot record.
 */
import { resolve } from 'node:path';
import { makeDirSync } from '../durable/file-sync.ts';
import { openLineLog, readCompleteLines } from '../durable/line-log.ts';
import { LedgerAppendError, type PaidAnswer, type ReceiptIssuer } from './receipt-issuer.ts';

const FILE = 'ledger-backlog.log';
/** How often a waiting entry is tried again, ms. */
export const LEDGER_BACKLOG_RETRY_MS = 1_000;

/** A waiting answer as stored: the body in base64. */
type Stored = Omit<PaidAnswer, 'body'> & { readonly bodyBase64: string };
type Line = { readonly k: number; readonly v: Stored } | { readonly k: number; readonly del: true };

export interface LedgerBacklog {
  /** Records a settled answer without its entry; resolves once the record is durable. */
  add(answer: PaidAnswer): Promise<void>;
  /** Entries waiting to be appended. */
  size(): number;
  /** Appends what waits, oldest first; stops at the first refusal (tried again on the next drain). */
  drain(): Promise<void>;
  /** Stops the retry timer and waits for a drain under way. */
  close(): Promise<void>;
}

export interface LedgerBacklogConfig {
  readonly dir: string;
  /** Appends one entry and issues its receipt (the unwrapped issuer: a failure here must not add it again). */
  readonly issue: ReceiptIssuer['issue'];
  readonly retryMs?: number;
  readonly fault?: (what: string, err: unknown) => void;
}

function load(path: string): Map<number, Stored> {
  const waiting = new Map<number, Stored>();
  // A torn last line after a crash is never a record (its answer was not sent: the write comes first).
  for (const text of readCompleteLines(path)) {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      continue;
    }
    if ('del' in line) waiting.delete(line.k);
    else waiting.set(line.k, line.v);
  }
  return waiting;
}

/** Opens the backlog under `dir` (loading what waited before a restart) and starts its retry timer. */
export function createLedgerBacklog(config: LedgerBacklogConfig): LedgerBacklog {
  makeDirSync(config.dir);
  const path = resolve(config.dir, FILE);
  const waiting = load(path);
  let next = Math.max(0, ...waiting.keys()) + 1;
  let draining: Promise<void> | null = null;
  // Lines queued together share one write and one fsync; each resolves once durable.
  const log = openLineLog<Line>({ path, flush: (lines, file) => file.append(lines.map((l) => `${JSON.stringify(l)}\n`).join('')) });
  const write = (line: Line): Promise<void> => log.add(line);

  async function drainOnce(): Promise<void> {
    for (const [k, stored] of [...waiting]) {
      const { bodyBase64, ...rest } = stored;
      try {
        await config.issue({ ...rest, body: Buffer.from(bodyBase64, 'base64') });
      } catch (err) {
        // Refused by the ledger: tried again later. Appended but not signed: done (appending again would duplicate it).
        if (err instanceof LedgerAppendError) return;
        config.fault?.('a reconciled ledger entry was appended but its receipt was not signed', err);
      }
      waiting.delete(k);
      await write({ k, del: true }).catch((err: unknown) =>
        config.fault?.('a reconciled ledger entry could not be marked done (it is appended again after a restart)', err),
      );
    }
  }

  const drain = (): Promise<void> => {
    draining ??= drainOnce().finally(() => (draining = null));
    return draining;
  };
  const timer = setInterval(() => {
    if (waiting.size > 0) void drain();
  }, config.retryMs ?? LEDGER_BACKLOG_RETRY_MS);
  timer.unref();

  return {
    async add(answer) {
      const k = next++;
      const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : Buffer.from(answer.body);
      const { body: _, ...rest } = answer;
      const stored: Stored = { ...rest, bodyBase64: body.toString('base64') };
      // In memory first: even when the file refuses it too, paid calls stop until it is appended.
      waiting.set(k, stored);
      await write({ k, v: stored });
    },
    size: () => waiting.size,
    drain,
    async close() {
      clearInterval(timer);
      await draining;
      await log.close();
    },
  };
}

/**
 * The issuer paid answers use: when the ledger refuses an entry, the answer is recorded in the
 * backlog (durably) before the failure goes on to the caller, which answers without a receipt.
 */
export function withLedgerBacklog(issuer: ReceiptIssuer, backlog: Pick<LedgerBacklog, 'add'>, fault: (what: string, err: unknown) => void): ReceiptIssuer {
  return {
    async issue(answer, also) {
      try {
        return await issuer.issue(answer, also);
      } catch (err) {
        // A charge that rode in the failed commit was never made: there is no settled answer to record.
        if (err instanceof LedgerAppendError && !also?.charge)
          await backlog.add(answer).catch((e: unknown) => fault('a settled answer without its ledger entry could not be recorded on disk', e));
        throw err;
      }
    },
  };
}
