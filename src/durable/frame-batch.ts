/**
 * A batch of the commit journal (commit-journal.ts) as bytes: one record per commit (its sequence
 * number, a JSON header line naming each write's file, byte offset and length; the writes' bytes
 * as they are; a newline; a CRC over it all: journal-layout.ts, read back by journal-recovery.ts),
 * and each file's bytes with the offset they go to.
 */
import type { JournalFileIo } from './journal-file.ts';
import { recordBytes } from './journal-layout.ts';
import type { JournalWrite } from './journal-types.ts';

/** A commit's writes without those a later write of the same file and record key supersedes, in order. */
function unsuperseded(writes: readonly JournalWrite[]): readonly JournalWrite[] {
  if (!writes.some((w) => w.key !== undefined)) return writes;
  const last = new Map<string, JournalWrite>();
  for (const w of writes) if (w.key !== undefined) last.set(`${w.file.name}\n${w.key}`, w);
  return writes.filter((w) => w.key === undefined || last.get(`${w.file.name}\n${w.key}`) === w);
}

/** A batch's pending bytes per file: where they start, how many so far, the texts' bytes in order. */
interface PendingFile {
  readonly at: number;
  bytes: number;
  readonly chunks: Buffer[];
}

/**
 * The journal records of a batch, numbered from `seq` (`next`: the number after the last), and each
 * file's bytes. Each text is encoded once: its bytes go both into its commit's record (framed, not
 * escaped into JSON) and into its file.
 */
export function frameBatch(batch: readonly (readonly JournalWrite[])[], files: ReadonlyMap<string, JournalFileIo>, seq: number) {
  let next = seq;
  const lines: Buffer[] = [];
  const perFile = new Map<JournalFileIo, PendingFile>();
  const durable: Array<{ w: JournalWrite; offset: number }> = [];
  for (const writes of batch) {
    const frames: Array<[string, number, number]> = [];
    const body: Buffer[] = [];
    for (const w of unsuperseded(writes)) {
      const file = files.get(w.file.name);
      if (file !== w.file) throw new Error(`${w.file.name} is not a file of this journal`);
      const pending = perFile.get(file) ?? { at: file.size(), bytes: 0, chunks: [] };
      const offset = pending.at + pending.bytes;
      const bytes = Buffer.from(w.text);
      pending.bytes += bytes.length;
      pending.chunks.push(bytes);
      perFile.set(file, pending);
      frames.push([file.name, offset, bytes.length]);
      body.push(bytes);
      durable.push({ w, offset });
    }
    if (frames.length > 0) lines.push(...recordBytes(next++, frames, body, seq));
  }
  return { lines, perFile, durable, next };
}
