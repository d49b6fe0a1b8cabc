/**
 * How the worker pool (worker-pool.ts) sends a round of tasks to Piscina: tasks requested in one
 * round of the event loop leave together, as batches (task-batch.ts), solo tasks alone.
 */
import { BATCH_TASK_NAME, type BatchedOutcome } from './task-batch.ts';

/** Piscina's `run`, as the pool hands it over (the library is imported by worker-pool.ts alone). */
export type RunOnPool = (input: unknown, options: { readonly name: string; readonly signal?: AbortSignal }) => Promise<unknown>;

/**
 * Tasks requested in one round of the event loop leave together (task-batch.ts): up to this many
 * go to one worker as one batch; a larger round is shared among the workers, a batch each.
 */
export const BATCH_SHARE_TASKS = 4;

/** A task waiting for the end of the event loop's round. */
export interface Waiting {
  readonly name: string;
  readonly input: unknown;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** The rejection of a task whose signal fired (named as Piscina names its own). */
export function abortError(signal: AbortSignal): Error {
  const err = new Error('The task has been aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** `tasks` in `groups` batches of nearly equal size, in order. */
function shares<T>(tasks: readonly T[], groups: number): T[][] {
  const size = Math.ceil(tasks.length / groups);
  return Array.from({ length: Math.ceil(tasks.length / size) }, (_, i) => tasks.slice(i * size, (i + 1) * size));
}

/** Runs one batch; each task settles with its own outcome, or at once when its signal fires first. */
function sendBatch(run: RunOnPool, batch: readonly Waiting[]): void {
  const unhook = batch.map((task) => {
    if (!task.signal) return () => {};
    const onAbort = () => task.reject(abortError(task.signal!));
    task.signal.addEventListener('abort', onAbort, { once: true });
    return () => task.signal!.removeEventListener('abort', onAbort);
  });
  const tasks = batch.map(({ name, input }) => ({ name, input }));
  (run(tasks, { name: BATCH_TASK_NAME }) as Promise<BatchedOutcome[]>).then(
    (outcomes) => {
      for (const [i, task] of batch.entries()) {
        unhook[i]!();
        const outcome = outcomes[i]!;
        if (outcome.ok) task.resolve(outcome.value);
        else task.reject(outcome.error);
      }
    },
    (err: unknown) => {
      for (const [i, task] of batch.entries()) {
        unhook[i]!();
        task.reject(err);
      }
    },
  );
}

/** Runs one task as itself, with Piscina's own abort handling. */
function sendAlone(run: RunOnPool, { name, input, signal, resolve, reject }: Waiting): void {
  run(input, { name, ...(signal ? { signal } : {}) }).then(resolve, reject);
}

/**
 * Sends the round's tasks: solo tasks and a lone task as themselves, the others as batches. A task
 * whose signal already fired is refused here and never sent.
 */
export function dispatch(
  run: RunOnPool,
  waiting: readonly Waiting[],
  workers: number,
  solo: ReadonlySet<string>,
  counts: { tasks: number; messages: number },
): void {
  const live = waiting.filter((task) => {
    if (task.signal?.aborted) task.reject(abortError(task.signal));
    return !task.signal?.aborted;
  });
  counts.tasks += live.length;
  const alone = live.filter((task) => solo.has(task.name));
  const batched = live.filter((task) => !solo.has(task.name));
  // A batch of one would only add the batch's wrapping.
  if (batched.length === 1) alone.push(batched.pop()!);
  for (const task of alone) sendAlone(run, task);
  counts.messages += alone.length;
  if (batched.length === 0) return;
  for (const batch of shares(batched, Math.min(workers, Math.ceil(batched.length / BATCH_SHARE_TASKS)))) {
    counts.messages += 1;
    sendBatch(run, batch);
  }
}
