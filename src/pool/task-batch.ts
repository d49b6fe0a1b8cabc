/**
 * Tasks sent to a worker together, as one message. On a small virtual machine a pool task's hop
 * costs more than most tasks' work (a message each way and a thread woken on each side: about
 * 70 µs of CPU, against about 8 µs a task in a batch of eight), so the tasks requested while the
 * event loop handles one round of I/O leave as one batch, and the worker answers with every
 * outcome at once. Both halves live here: the worker entry builds its batch task over its own
 * task table; the pool packs and unpacks.
 */

/** The export of the worker entry that runs a batch. */
export const BATCH_TASK_NAME = 'runBatch';

/** One task of a batch: its name in the task table and its input (plain data). */
export interface BatchedTask {
  readonly name: string;
  readonly input: unknown;
}

/** What one task of a batch came to: its value, or what it threw (crossing the thread as the pool's own errors do). */
export type BatchedOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** A task table as the batch sees it: functions of one plain input. */
export type BatchableTable = Readonly<Record<string, (input: never) => unknown>>;

/**
 * The batch task of a worker entry over its task table: every task of the batch runs (a failing
 * one does not stop the others) and the outcomes come back in the batch's order.
 */
export function createBatchTask(table: BatchableTable): (tasks: readonly BatchedTask[]) => Promise<BatchedOutcome[]> {
  return (tasks) =>
    Promise.all(
      tasks.map(async (task): Promise<BatchedOutcome> => {
        try {
          const run = Object.hasOwn(table, task.name) ? table[task.name] : undefined;
          if (run === undefined || task.name === BATCH_TASK_NAME) throw new Error(`the pool has no task ${task.name}`);
          return { ok: true, value: await run(task.input as never) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
}
