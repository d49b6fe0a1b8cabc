/** Runs the x402-intel CLI in this process, in a directory of the test's, capturing what it prints. */
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.ts';

/**
 * Runs `argv` with working directory `dir` and home `dir/home`; resolves with the exit status and
 * the output. `stopWhen`, for a command that runs until interrupted (`stream`): interrupts it, as
 * Ctrl-C does, once what it printed passes the check (a wait on what came, not on the clock).
 */
export async function runCliIn(dir: string, argv: string[], env: Record<string, string> = {}, stopWhen?: (stdout: string) => boolean) {
  let stdout = '';
  let stderr = '';
  const interrupt = new AbortController();
  const code = await runCli(argv, {
    stdout: (c) => {
      stdout += typeof c === 'string' ? c : Buffer.from(c).toString();
      if (stopWhen?.(stdout)) interrupt.abort();
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    cwd: dir,
    home: join(dir, 'home'),
    interrupt: interrupt.signal,
  });
  return { code, stdout, stderr };
}

/** What `x402-intel stream … --json` printed: one JSON line per update, then the summary (pretty JSON). */
export function streamOutputOf(stdout: string): { readonly lines: Record<string, any>[]; readonly summary: Record<string, any> } {
  const all = stdout.trim().split('\n');
  const first = all.findIndex((l) => !l.startsWith('{"topic"'));
  return { lines: all.slice(0, first).map((l) => JSON.parse(l)), summary: JSON.parse(all.slice(first).join('\n')) };
}
