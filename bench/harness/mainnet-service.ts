/**
 * The built service as a child process in mainnet mode against a localnet in the bench process,
 * ready to be paid on both networks: its Solana receiver holds a stablecoin account, its fee payer
 * has SOL, and its Base receiver is a fresh address. A child has a core of its own, so the
 * clients' work (fetch, signing) does not land on the service's event loop.
 * `rpcUrl` puts something (a delaying proxy) between the service and the localnet's Solana RPC.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Localnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { killService, type ServiceProcess, spawnService } from '../../test/helpers/service-process.ts';
import { fundedPayer, rpcCall } from '../../test/helpers/svm-payer.ts';
import { localnetMainnetArgs } from './mainnet-args.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** SOL for the service's fee payer: thousands of paid calls' fees. */
const FEE_PAYER_LAMPORTS = 10_000_000_000;

export interface MainnetService {
  readonly url: string;
  readonly pid: number;
  readonly process: ServiceProcess;
  /** Stops the child (SIGTERM, so a CPU profile is written) and removes its data dir. */
  close(): Promise<void>;
}

export interface MainnetServiceOptions {
  /** The Solana RPC the service uses (default the localnet's). */
  readonly rpcUrl?: string;
  /** Flags for Node itself (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
  readonly extraArgs?: readonly string[];
}

function withRpcUrl(args: string[], rpcUrl: string | undefined): string[] {
  if (rpcUrl === undefined) return args;
  const at = args.indexOf('--rpc-url');
  return args.map((a, i) => (i === at + 1 ? rpcUrl : a));
}

/** Stops `p` with SIGTERM and waits; SIGKILL after 15 s. */
async function stop(p: ServiceProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const timer = setTimeout(() => void killService(p), 15_000);
  p.child.kill('SIGTERM');
  await p.exited;
  clearTimeout(timer);
}

/** Starts the built service (dist/server/main.js) against `net` and prepares its accounts. */
export async function startMainnetService(net: Localnet, options: MainnetServiceOptions = {}): Promise<MainnetService> {
  if (!existsSync(join(ROOT, 'dist', 'server', 'main.js'))) throw new Error('dist/server/main.js is missing: run `npm run build` first');
  const root = mkdtempSync(join(tmpdir(), 'bench-mainnet-'));
  const svmPayTo = (await fundedPayer(net.urls.rpc, 1)).signer.address;
  const args = [
    ...withRpcUrl(localnetMainnetArgs(net, join(root, 'relayer.key'), svmPayTo), options.rpcUrl),
    ...['--evm-pay-to', evmAddressOfKey(generateEvmKey())],
    ...(options.extraArgs ?? []),
  ];
  const child = await spawnService(join(root, 'data'), args, 'built', options.nodeArgs ?? []).catch((err: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw err;
  });
  const challenge = await fetch(`${child.url}/v1/epoch`);
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString('utf8'));
  const feePayer = required.accepts.find((a: { network: string }) => a.network.startsWith('solana:')).extra.feePayer as string;
  await rpcCall(net.urls.rpc, 'requestAirdrop', [feePayer, FEE_PAYER_LAMPORTS]);
  return {
    url: child.url,
    pid: child.pid,
    process: child,
    async close() {
      await stop(child);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
