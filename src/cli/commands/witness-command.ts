/**
 * `x402-intel witness keygen|serve`: a transparency-log witness of our own (c2sp.org/tlog-witness).
 * keygen writes a witness key file (mode 0600, never overwritten) and prints its vkey; serve
 * cosigns the checkpoints of the logs given by --log (repeatable) until SIGINT or SIGTERM,
 * keeping the latest cosigned size and root of each log in --data-dir. Never prints a key.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createWitnessKeyFile } from '../../witness/witness-key.ts';
import { startWitness } from '../../witness/witness-program.ts';
import { optionValue, optionValues, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';

/** Where serve listens unless told: loopback, the witness port of our docs. */
export const WITNESS_DEFAULTS = { host: '127.0.0.1', port: 8404, dataDir: '.witness' } as const;

function required(ctx: CommandContext, name: string): string {
  const v = optionValue(ctx.args, name);
  if (v === undefined) throw usageError(`witness needs --${name}`);
  return v;
}

function keygen(ctx: CommandContext): ExitCode {
  const path = resolve(ctx.cwd, required(ctx, 'key'));
  if (existsSync(path)) throw new CliError('key_file_exists', `${path} already exists; it is left as it is (choose another file)`, EXIT.keyFile);
  const name = required(ctx, 'name');
  let vkey: string;
  try {
    vkey = createWitnessKeyFile(path, name);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  ctx.out.result({ file: path, name, vkey }, () =>
    [`witness key written to ${path} (mode 0600)`, `vkey ${vkey}`, `serve: x402-intel witness serve --key ${path} --log <log vkey>`].join('\n'),
  );
  return EXIT.ok;
}

function keyFileOf(ctx: CommandContext): string {
  const path = resolve(ctx.cwd, required(ctx, 'key'));
  if (!existsSync(path)) throw new CliError('key_file_missing', `${path} does not exist (x402-intel witness keygen makes one)`, EXIT.keyFile);
  if ((statSync(path).mode & 0o077) !== 0) throw new CliError('key_file_mode', `${path} is readable by group or others; chmod 600 it`, EXIT.keyFile);
  return path;
}

function portOf(ctx: CommandContext): number {
  const text = optionValue(ctx.args, 'port') ?? String(WITNESS_DEFAULTS.port);
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw usageError(`--port must be an integer 0-65535; got "${text.slice(0, 16)}"`);
  return Number(text);
}

async function serve(ctx: CommandContext): Promise<ExitCode> {
  const logs = optionValues(ctx.args, 'log');
  if (logs.length === 0) throw usageError(`witness serve needs at least one --log <vkey>`);
  const keyFile = keyFileOf(ctx);
  let witness: Awaited<ReturnType<typeof startWitness>>;
  try {
    witness = await startWitness({
      keyFile,
      logs,
      host: optionValue(ctx.args, 'host') ?? WITNESS_DEFAULTS.host,
      port: portOf(ctx),
      dataDir: resolve(ctx.cwd, optionValue(ctx.args, 'data-dir') ?? WITNESS_DEFAULTS.dataDir),
      log: (line) => ctx.out.note(line),
    });
  } catch (err) {
    throw new CliError('witness_not_started', `the witness did not start: ${(err as Error).message}`, EXIT.failed);
  }
  ctx.out.note(`witness ${witness.name} listening ${witness.url} (POST /add-checkpoint), ${logs.length} log(s)`);
  ctx.out.note(`vkey ${witness.vkey}`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await witness.close();
  ctx.out.result({ name: witness.name, vkey: witness.vkey, stopped: true }, () => 'witness stopped');
  return EXIT.ok;
}

/** Runs `witness <keygen|serve>`. */
export async function runWitness(ctx: CommandContext): Promise<ExitCode> {
  const [sub] = takePositionals(ctx.args, ['keygen|serve']) as [string];
  if (sub === 'keygen') return keygen(ctx);
  if (sub === 'serve') return serve(ctx);
  throw usageError(`witness takes keygen or serve, not "${sub.slice(0, 32)}"`);
}
