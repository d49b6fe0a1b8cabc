/**
 * Several real service processes (the build, `node dist/server/main.js`, each on port 0 with its
 * own data dir) on one PostgreSQL database and one localnet, as a deployment behind a load balancer
 * runs them: mainnet mode pointed at a localnet started in the test's process, one service
 * identity shared by all (`--keypair`), funded as the Solana fee payer.
 */
import bs58 from 'bs58';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import type { Localnet } from '@solana-x402-intel/localnet';
import { localnetMainnetArgs } from '../../bench/harness/mainnet-args.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';
import { killService, type ServiceProcess, spawnService } from './service-process.ts';
import { fundedPayer, rpcCall } from './svm-payer.ts';
import { startTestLocalnet } from './test-service.ts';

/** Lamports for the shared fee payer: far more than a test's fees. */
const FEE_PAYER_LAMPORTS = 100_000_000_000;

export interface InstanceGroup {
  readonly net: Localnet;
  readonly db: TestDatabase;
  /** The running instances (a killed one stays in its place until started again). */
  readonly services: ServiceProcess[];
  /** The Solana wallet the payments go to. */
  readonly payTo: string;
  /** Starts instance `i` (again) on its data dir and the group's options; `databaseUrl` overrides the database. */
  start(i: number, databaseUrl?: string): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/** What a group may change: a proxy between the instances and the localnet's Solana RPC, more flags for every instance. */
export interface InstanceGroupOptions {
  /** Given the localnet's RPC URL, the URL the instances use instead (e.g. a held-send RPC in front of it). */
  readonly rpc?: (rpcUrl: string) => Promise<string>;
  readonly extraArgs?: readonly string[];
  /** Most transactions of background traffic a slot; none unless it says (localnet-traffic.ts). */
  readonly txsPerSlot?: number;
  /** The localnet's world seed; the group's label unless it says (COMMON_TEST_SEED plays back the run's built world). */
  readonly seed?: string;
}

/** Starts a localnet, a fresh database and `count` instances on them (concurrently). */
export async function startInstanceGroup(
  label: string,
  count: number,
  databaseUrl?: (db: TestDatabase) => string,
  options: InstanceGroupOptions = {},
): Promise<InstanceGroup> {
  const root = mkdtempSync(join(tmpdir(), `${label}-`));
  const db = await createTestDatabase(label);
  const { localnet: net } = await startTestLocalnet(options.seed ?? label, { txsPerSlot: options.txsPerSlot ?? 0 });
  const identity = nacl.sign.keyPair();
  const keypairFile = join(root, 'identity.json');
  writeFileSync(keypairFile, JSON.stringify([...identity.secretKey]), { mode: 0o600 });
  await rpcCall(net.urls.rpc, 'requestAirdrop', [bs58.encode(identity.publicKey), FEE_PAYER_LAMPORTS]);
  // The pay-to wallet holds a stablecoin account (funding creates it).
  const payTo = (await fundedPayer(net.urls.rpc, 1)).signer.address;
  const rpcUrl = options.rpc ? await options.rpc(net.urls.rpc) : net.urls.rpc;
  const mainnet = localnetMainnetArgs(net, join(root, 'relayer.key'), payTo).map((a) => (a === net.urls.rpc ? rpcUrl : a));
  const args = [...mainnet, '--keypair', keypairFile, ...(options.extraArgs ?? [])];
  const services: ServiceProcess[] = [];
  const start = async (i: number, url = databaseUrl?.(db) ?? db.url): Promise<ServiceProcess> => {
    const s = await spawnService(join(root, `instance-${i}`), [...args, '--database-url', url]);
    services[i] = s;
    return s;
  };
  const close = async (): Promise<void> => {
    for (const s of services) await killService(s);
    await net.close();
    await db.drop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await Promise.all(Array.from({ length: count }, (_, i) => start(i)));
  } catch (err) {
    await close();
    throw err;
  }
  return { net, db, services, payTo, start, close };
}
