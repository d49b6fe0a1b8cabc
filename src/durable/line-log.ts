/**
 * A log of lines for a store that keeps its state in memory and on disk: read back at start
 * (complete lines only: a torn last line was never acknowledged), then appended to with group
 * commit (one write and one fdatasync for every record queued meanwhile), each record's promise
 * resolving once it is durable. The store decides per batch what is written: its lines appended,
 * or the file compacted (replaced whole) or rotated instead, when its own bound says so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { openAppendFile, type AppendFile } from './append-file.ts';
import { replaceFileSync } from './atomic-replace.ts';
import { createGroupCommit, type GroupCommitStats } from './group-commit.ts';

export interface LineLogConfig<T> {
  readonly path: string;
  /** Mode of the files created; default 0600. */
  readonly mode?: number;
  /** The file's whole content to start from, written atomically before the log serves (a compaction at start); absent: kept as is. */
  readonly startText?: string;
  /** Writes one batch (queue order) to `file`: usually `file.append` of its lines; a throw rejects the whole batch. */
  readonly flush: (batch: readonly T[], file: AppendFile) => Promise<void>;
}

export interface LineLog<T> {
  /** Queues `item` for the next flush; resolves once it is durable. */
  add(item: T): Promise<void>;
  /** Resolves when nothing is queued or being written. */
  drain(): Promise<void>;
  stats(): Readonly<GroupCommitStats>;
  /** Waits for queued writes and closes the file; later adds are refused. */
  close(): Promise<void>;
}

/** The complete lines of `path` in order, without their newlines ([] when there is no file); an unterminated last line is left out. */
export function readCompleteLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  // The last piece is '' after a complete file, or a line torn by a crash mid-append: never a record.
  lines.pop();
  return lines;
}

/** Opens the log at `config.path` synchronously (a missing or unwritable data dir fails the start, not a request). */
export function openLineLog<T>(config: LineLogConfig<T>): LineLog<T> {
  const mode = config.mode ?? 0o600;
  if (config.startText !== undefined) replaceFileSync(config.path, config.startText, mode);
  const file = openAppendFile(config.path, mode);
  const commit = createGroupCommit<T>({ flush: (batch) => config.flush(batch, file) });
  let closed = false;
  return {
    // Refused after close: the owner has let go of the file, and an add would open it again.
    add: (item) => (closed ? Promise.reject(new Error(`${config.path} is closed`)) : commit.add(item)),
    drain: commit.drain,
    stats: commit.stats,
    async close() {
      closed = true;
      await commit.drain();
      await file.close();
    },
  };
}
