/**
 * A bench client in a process of its own: `script` runs under tsx, reads one JSON job on stdin and
 * prints one JSON outcome on stdout. Its own process keeps its CPU off the bench's (which runs the
 * localnet) and off the service's.
 */
import { spawn } from 'node:child_process';

/** Runs `script` with `job`; resolves with its outcome, rejects with its stderr when it exits non-zero. */
export function runJsonChild<Job, Outcome>(script: string, job: Job, label: string): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(JSON.stringify(job));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as Outcome) : reject(new Error(`${label} exited ${code}: ${err}`))));
  });
}
