/**
 * A service and witnesses of our own wired together the way an operator wires them: a service
 * identity made before the service starts (its log vkey is what the witnesses are told), witness
 * keys made by the CLI's keygen code, witnesses listening in process on port 0, and the real
 * service started on a data dir of the test's, against a localnet the test shares between starts
 * (a restored data dir is started against the same chain).
 */
import { join } from 'node:path';
import { vi } from 'vitest';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService, type Upstreams } from '../../src/service/service.ts';
import { loadOrCreateIdentity } from '../../src/receipts/identity.ts';
import { encodeVerifierKey } from '../../src/tlog/signed-note.ts';
import { testServiceConfig } from './test-support.ts';
import { createWitnessKeyFile } from '../../src/witness/witness-key.ts';
import { type RunningWitness, startWitness } from '../../src/witness/witness-program.ts';

/** The log's name in these tests (`--log-origin`). */
export const TEST_LOG_ORIGIN = 'intel.test/witnessed-log';

/** The service identity file under `dir` and the log vkey it signs checkpoints with. */
export function makeLogIdentity(dir: string): { readonly keypairPath: string; readonly vkey: string } {
  const keypairPath = join(dir, 'identity.json');
  const identity = loadOrCreateIdentity(keypairPath);
  return { keypairPath, vkey: encodeVerifierKey(TEST_LOG_ORIGIN, identity.publicKeyBytes) };
}

/** `count` witnesses of `logVkey`, each with its key and state under `dir`. */
export async function startTestWitnesses(dir: string, count: number, logVkey: string): Promise<RunningWitness[]> {
  const witnesses: RunningWitness[] = [];
  for (let i = 1; i <= count; i++) {
    const keyFile = join(dir, `w${i}.key`);
    createWitnessKeyFile(keyFile, `witness.test/w${i}`);
    witnesses.push(await startWitness({ keyFile, logs: [logVkey], host: '127.0.0.1', port: 0, dataDir: join(dir, `w${i}-state`) }));
  }
  return witnesses;
}

export interface WitnessedServiceOptions {
  readonly upstreams: Upstreams;
  readonly dataDir: string;
  readonly keypairPath: string;
  readonly witnesses: readonly Pick<RunningWitness, 'url' | 'vkey'>[];
  readonly quorum?: number;
}

/** The real service with its witnesses. */
export function startWitnessedService(o: WitnessedServiceOptions): Promise<RunningService> {
  const argv = ['--keypair', o.keypairPath, '--log-origin', TEST_LOG_ORIGIN, ...o.witnesses.flatMap((w) => ['--witness', `${w.url}=${w.vkey}`])];
  if (o.quorum !== undefined) argv.push('--witness-quorum', String(o.quorum));
  return startService(testServiceConfig(o.dataDir, argv), { upstreams: o.upstreams });
}

/** The `witnesses` part of the service's /health. */
export async function witnessHealth(url: string): Promise<{
  quorum: number;
  cosignedSize: number | null;
  witnesses: { name: string; url: string; cosignedSize: number | null; error: string | null }[];
}> {
  const health = (await (await fetch(`${url}/health`)).json()) as { witnesses: never };
  return health.witnesses;
}

/** Waits (polling /health) until every witness cosigned at least `size` for the service. */
export async function waitForCosigned(url: string, size: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const w = await witnessHealth(url);
      if (!w.witnesses.every((x) => (x.cosignedSize ?? -1) >= size)) throw new Error(`witnesses at ${JSON.stringify(w.witnesses)}`);
    },
    { timeout: 60_000, interval: 100 },
  );
}

/** The localnet's upstreams for the service, as test-service.ts builds them. */
export type SharedLocalnet = { readonly localnet: Localnet; readonly upstreams: Upstreams };
