/**
 * Setup file of the `shared` group (vitest.config.ts): its files run one after another in the same
 * process, without module isolation, so whatever one leaves running or changed in the process
 * lands on every later file. This check fails the file that leaves:
 * - an OS handle (a server, a socket, a child process, a worker thread): it would hold ports, or
 *   burn CPU, for the rest of the run;
 * - a listener on the process (exit, signals, warnings) it did not have at its start;
 * - a patched console method, a changed or added environment variable, a set `process.exitCode`;
 * and it fails a file during which Node warned of too many listeners on one emitter (the sign of
 * listeners added per start and never removed, which a long-lived process would pile up).
 *
 * Handles are closed asynchronously (a socket's close event comes a tick later), so the count is
 * waited for, up to SETTLE_MS, before it is judged. Timers (a localnet's block producer) are not
 * counted here (see activeHandles); `SHARED_LEAK_AUDIT=1` tracks every timer and handle the file
 * creates through async_hooks and prints the ones still alive at its end, with where they were
 * made (slower: it hooks every promise, so it is for audits, not every run).
 */
import { createHook } from 'node:async_hooks';
import { afterAll, beforeAll, vi } from 'vitest';

/** How long closing handles may take to be gone once the file's own afterAll hooks returned. */
const SETTLE_MS = 5_000;
const POLL_MS = 25;
/** Process events whose listeners a service or a test might add and forget. */
const PROCESS_EVENTS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'warning'] as const;
const UNCOUNTED = new Set(['Timeout', 'Immediate']);
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
/** async_hooks types that are a timer or an OS handle (not promises, not one-shot requests). */
const AUDITED_TYPES =
  /^(Timeout|Immediate|TCPWRAP|TCPSERVERWRAP|PIPEWRAP|PIPESERVERWRAP|PROCESSWRAP|UDPWRAP|SIGNALWRAP|FSEVENTWRAP|STATWATCHER|WORKER|MESSAGEPORT|TTYWRAP|HTTP2SESSION)$/;

const VITEST_FRAME = /\/node_modules\/(@vitest|vitest)\//;

interface Snapshot {
  readonly resources: Map<string, number>;
  readonly listeners: Map<string, number>;
  readonly console: ReadonlyMap<string, unknown>;
  readonly env: string;
  readonly exitCode: typeof process.exitCode;
}

/**
 * The process's active handles by type. Timers are left out: vitest's own come and go around the
 * hooks (a count taken in beforeAll and one in afterAll differ by one with nothing leaked), so
 * timers are the audit's (below).
 */
function activeHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of process.getActiveResourcesInfo()) if (!UNCOUNTED.has(item)) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

function snapshot(): Snapshot {
  return {
    resources: activeHandles(),
    listeners: new Map(PROCESS_EVENTS.map((e) => [e, process.listenerCount(e)])),
    console: new Map(CONSOLE_METHODS.map((m) => [m, console[m]])),
    env: JSON.stringify(Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b))),
    exitCode: process.exitCode,
  };
}

/** The resource types with more instances now than at the start ("Timeout +2"). */
function grownResources(before: Snapshot): string[] {
  const now = activeHandles();
  return [...now].filter(([type, n]) => n > (before.resources.get(type) ?? 0)).map(([type, n]) => `${type} +${n - (before.resources.get(type) ?? 0)}`);
}

function otherChanges(before: Snapshot): string[] {
  const changes: string[] = [];
  for (const e of PROCESS_EVENTS) {
    const n = process.listenerCount(e);
    if (n > (before.listeners.get(e) ?? 0)) changes.push(`process '${e}' listeners +${n - (before.listeners.get(e) ?? 0)}`);
  }
  for (const m of CONSOLE_METHODS) if (console[m] !== before.console.get(m)) changes.push(`console.${m} replaced`);
  if (snapshot().env !== before.env) changes.push('process.env changed');
  if (process.exitCode !== before.exitCode) changes.push(`process.exitCode set to ${process.exitCode}`);
  return changes;
}

/** A timer as Node makes it (fields read by the audit only). */
interface NodeTimer {
  readonly _repeat: number | null;
  readonly _destroyed: boolean;
  hasRef(): boolean;
}

/** Where a resource was made: its stack's frames, this file's left out. */
function madeAt(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack.split('\n').filter((f) => f.startsWith('    at ') && !f.includes('shared-process-check'));
}

/**
 * Whether a timer still pending at the end of a file matters to the files after it: a repeating
 * one (a block producer, a poller), one that keeps the process alive, or one armed by a timer's
 * own callback (a loop of timeouts). An unreferenced one-shot timer (AbortSignal.timeout, a
 * close's deadline) fires once into nothing and is left alone.
 */
function timerMatters(timer: NodeTimer, armedByTimer: boolean): boolean {
  if (timer._destroyed) return false;
  return timer._repeat !== null || timer.hasRef() || armedByTimer;
}

/** Timers and handles created during the file and still alive at its end, with where they were made. */
function startAudit(): () => string[] {
  const alive = new Map<number, { type: string; resource: object; armedByTimer: boolean; frames: string[] }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (!AUDITED_TYPES.test(type)) return;
      const all = madeAt();
      const frames = all.filter((f) => !f.includes('(node:'));
      // vitest's own timers (hook and test time-outs, its reporting) are not the file's.
      if (frames.length > 0 && VITEST_FRAME.test(frames[0]!)) return;
      // A timer made in a timer's callback is a loop's next turn, unless it is an AbortSignal.timeout's.
      const armedByTimer = all.some((f) => f.includes('listOnTimeout')) && !all.some((f) => f.includes('abort_controller'));
      alive.set(id, { type, resource, armedByTimer, frames: frames.slice(0, 12) });
    },
    destroy(id) {
      alive.delete(id);
    },
  }).enable();
  return () => {
    hook.disable();
    return [...alive.values()]
      .filter((r) => r.type !== 'Timeout' || timerMatters(r.resource as NodeTimer, r.armedByTimer))
      .map((r) => `${r.type}\n${r.frames.join('\n')}`);
  };
}

let before: Snapshot;
let audit: (() => string[]) | null = null;
const listenerWarnings: string[] = [];
const onWarning = (warning: Error): void => {
  if (warning.name === 'MaxListenersExceededWarning') listenerWarnings.push(warning.message);
};

beforeAll(() => {
  before = snapshot();
  process.on('warning', onWarning);
  if (process.env.SHARED_LEAK_AUDIT === '1') audit = startAudit();
});

afterAll(async () => {
  process.off('warning', onWarning);
  await vi.waitUntil(() => grownResources(before).length === 0, { timeout: SETTLE_MS, interval: POLL_MS }).catch(() => undefined);
  const leftovers = audit?.() ?? [];
  if (leftovers.length > 0) console.error(`shared-process audit: ${leftovers.length} timers/handles left alive:\n${leftovers.join('\n---\n')}`);
  const problems = [
    ...(leftovers.length > 0 ? [`${leftovers.length} timers/handles left alive (printed above)`] : []),
    ...grownResources(before).map((r) => `still active: ${r}`),
    ...otherChanges(before),
    ...listenerWarnings,
  ];
  if (problems.length > 0) {
    throw new Error(`this file leaves state behind in the shared test process (vitest.config.ts, SHARED group): ${problems.join('; ')}`);
  }
});
