/**
 * The CLI's entry, run by bin/x402-intel.mjs: the process's arguments, streams, environment and
 * home to runCli, and its status to the process. Never reads a key itself; never prints one.
 */
import { homedir } from 'node:os';
import { runCli } from './run-cli.ts';

/** Runs the CLI for this process and sets its exit status. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await runCli(argv, {
    stdout: (chunk) => process.stdout.write(chunk),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    home: process.env.HOME || homedir(),
  });
}
