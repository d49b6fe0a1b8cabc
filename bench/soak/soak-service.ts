/**
 * The service the soak runs against, in one of two modes:
 * - `embedded`: `npm run dev` with no upstream options, so the localnet lives in the service's
 *   process (what a user trying it on a laptop runs);
 * - `mainnet`: the build (`npm start`'s `dist/server/main.js`) pointed at a localnet running in the
 *   benchmark's own process, so the service's memory and event loop are its own.
 * With `heapSnapshotDir`, Node writes a heap snapshot there each time the service gets SIGUSR2.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { killService, type ServiceProcess, spawnService } from '../../test/helpers/service-process.ts';
import { fundedPayer, rpcCall } from '../../test/helpers/svm-payer.ts';
import { localnetMainnetArgs } from '../harness/mainnet-args.ts';
import type { LocalnetTarget } from './soak-payers.ts';

export type SoakMode = 'embedded' | 'mainnet';
export const SOAK_MODES: readonly SoakMode[] = ['embedded', 'mainnet'];

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Lamports for the service's Solana fee payer: far more than a soak's fees. */
const FEE_PAYER_LAMPORTS = 100_000_000_000;

export interface SoakService {
  readonly service: ServiceProcess;
  readonly target: LocalnetTarget;
  /** Asks Node in the service for a heap snapshot (written to `heapSnapshotDir`). */
  snapshot(): void;
  stop(): Promise<void>;
}

const line = (text: string, re: RegExp): string => {
  const found = re.exec(text)?.[1];
  if (!found) throw new Error(`the service did not print ${re}`);
  return found;
};

function embeddedTarget(service: ServiceProcess): LocalnetTarget {
  const out = service.stdout();
  return {
    serviceUrl: service.url,
    port: Number(new URL(service.url).port),
    rpcUrl: service.rpcUrl,
    evmRpcUrl: line(out, /^localnet evm (\S+)/m),
    stablecoinMint: service.stablecoinMint,
    evmUsdc: line(out, /^localnet stablecoin \S+ \(solana\), (\S+) \(evm\)/m),
  };
}

function mainnetTarget(service: ServiceProcess, net: Localnet): LocalnetTarget {
  return {
    serviceUrl: service.url,
    port: Number(new URL(service.url).port),
    rpcUrl: net.urls.rpc,
    evmRpcUrl: net.urls.evm,
    stablecoinMint: net.stablecoinMint,
    evmUsdc: net.evm.usdcAddress,
  };
}

/** Starts the service for the soak in `mode`, with a fresh `dataDir`. */
export async function startSoakService(mode: SoakMode, dataDir: string, heapSnapshotDir?: string): Promise<SoakService> {
  if (heapSnapshotDir) mkdirSync(heapSnapshotDir, { recursive: true });
  const nodeArgs = heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshotDir}`] : [];
  if (mode === 'embedded') {
    const service = await spawnService(dataDir, [], 'source', nodeArgs);
    return { service, target: embeddedTarget(service), snapshot: () => service.child.kill('SIGUSR2'), stop: () => killService(service) };
  }
  if (!existsSync(join(ROOT, 'dist', 'server', 'main.js'))) throw new Error('dist/server/main.js is missing: run `npm run build` first');
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-soak' });
  try {
    // The pay-to wallet holds a stablecoin account (funding creates it).
    const payTo = await fundedPayer(net.urls.rpc, 1);
    const args = localnetMainnetArgs(net, join(dataDir, 'relayer.key'), payTo.signer.address);
    const service = await spawnService(join(dataDir, 'service'), args, 'built', nodeArgs);
    const feePayer = await svmFeePayer(service.url);
    await rpcCall(net.urls.rpc, 'requestAirdrop', [feePayer, FEE_PAYER_LAMPORTS]);
    return {
      service,
      target: mainnetTarget(service, net),
      snapshot: () => service.child.kill('SIGUSR2'),
      stop: async () => {
        await killService(service);
        await net.close();
      },
    };
  } catch (err) {
    await net.close();
    throw err;
  }
}

/** The fee payer the service names in its Solana terms (it pays the fees of every settlement). */
async function svmFeePayer(serviceUrl: string): Promise<string> {
  const res = await fetch(`${serviceUrl}/v1/epoch`);
  await res.arrayBuffer();
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
  const feePayer = (required.accepts as { network: string; extra?: { feePayer?: string } }[]).find((a) => a.network.startsWith('solana:'))?.extra?.feePayer;
  if (!feePayer) throw new Error('the service named no Solana fee payer in its terms');
  return feePayer;
}
