/**
 * Child process for the durable-files crash test: writes through one primitive in `argv[2]`
 * forever and prints each sequence number on its own line once its write resolved (is durable):
 * - `log <path> <inFlight>`: appends records to a line log (group commit), `inFlight` at a time;
 *   each record is long (64 KiB) so a kill often lands inside a write;
 * - `replace <path>`: replaces the file whole with `{"n":…,"pad":…}` again and again.
 * The parent SIGKILLs it at a moment of its choosing.
 */
import { replaceFile } from '../../src/durable/atomic-replace.ts';
import { openLineLog } from '../../src/durable/line-log.ts';

const [mode, path, inFlightArg] = process.argv.slice(2) as [string, string, string | undefined];
const PAD = 'x'.repeat(64 * 1024);
let next = 0;

if (mode === 'log') {
  const log = openLineLog<string>({ path, flush: (lines, file) => file.append(lines.join('')) });
  const worker = async (): Promise<never> => {
    for (;;) {
      const n = next++;
      await log.add(`${JSON.stringify({ n, pad: PAD })}\n`);
      process.stdout.write(`${n}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(inFlightArg ?? '8') }, worker));
} else {
  for (;;) {
    const n = next++;
    await replaceFile(path, `${JSON.stringify({ n, pad: PAD })}\n`);
    process.stdout.write(`${n}\n`);
  }
}
