/**
 * `npm run localnet -- --help` prints the options and exits 0 (it was an "Unknown option" error);
 * a wrong option exits 2 pointing at --help.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('localnet command line', () => {
  it('--help and -h list every option with its default and exit 0 without starting anything', async () => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout } = await run([flag]);
      expect(code).toBe(0);
      for (const option of [
        '--host',
        '--rpc-port',
        '--geyser-port',
        '--market-port',
        '--evm-port',
        '--slot-ms',
        '--slots-per-epoch',
        '--seed',
        '--geyser-token',
        '--world-dir',
      ])
        expect(stdout).toContain(option);
      expect(stdout).toContain('default 8899');
    }
  });

  it('an unknown option or a bad port exits 2 and points at --help', async () => {
    const unknown = await run(['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    expect(unknown.stderr).toContain('--help');
    const port = await run(['--rpc-port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--rpc-port must be an integer 0-65535');
  });
});
