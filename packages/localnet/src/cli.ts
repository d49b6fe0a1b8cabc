/**
 * `npm run localnet -- [options]` (`--help` lists them): the embedded localnet on its own, for
 * pointing other clients at it. Prints its URLs and the stablecoin mint; stops on
 * SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startLocalnet } from './start-localnet.ts';

const PORT_FLAGS = ['rpc-port', 'geyser-port', 'market-port', 'evm-port'] as const;

/** Every option: its default (none for the optional token) and one line of help. */
const OPTIONS: ReadonlyArray<{ readonly name: string; readonly fallback?: string; readonly help: string }> = [
  { name: 'host', fallback: '127.0.0.1', help: 'address every surface listens on' },
  { name: 'rpc-port', fallback: '8899', help: 'Solana JSON-RPC (HTTP), with requestAirdrop and localnet_fundStablecoin' },
  { name: 'geyser-port', fallback: '10000', help: 'Yellowstone Geyser gRPC' },
  { name: 'market-port', fallback: '8900', help: 'market-source stand-ins (Jupiter, GeckoTerminal, Magic Eden, lending)' },
  { name: 'evm-port', fallback: '8545', help: 'local EVM JSON-RPC (chain id 8453, LocalUsdc)' },
  { name: 'slot-ms', fallback: '400', help: 'slot length, ms' },
  { name: 'slots-per-epoch', fallback: '432', help: 'slots per epoch' },
  { name: 'txs-per-slot', fallback: '20', help: 'most transactions of background traffic in a slot (each holds a quarter of it to it; 0: none)' },
  { name: 'seed', fallback: 'localnet-1', help: 'seed of the deterministic world' },
  { name: 'geyser-token', help: 'x-token the Geyser server requires (none by default)' },
  {
    name: 'world-dir',
    help: 'directory of world snapshots: the world of --seed is played back from there, or built and kept there (none by default: built at every start)',
  },
];

const USAGE = [
  'usage: npm run localnet -- [options]',
  '',
  'Runs the embedded local chain on its own: Solana RPC, Geyser gRPC, market stand-ins and a local EVM.',
  'Port 0 picks a free port. Stops on SIGINT/SIGTERM.',
  '',
  ...OPTIONS.map((o) => `  --${o.name.padEnd(16)} ${o.help}${o.fallback !== undefined ? ` (default ${o.fallback})` : ''}`),
  `  --${'help'.padEnd(16)} this text`,
].join('\n');

function fail(message: string): never {
  console.error(`localnet: ${message}`);
  console.error('run with --help for the list of options');
  process.exit(2);
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(OPTIONS.map((o) => [o.name, { type: 'string' as const, ...(o.fallback !== undefined ? { default: o.fallback } : {}) }]));
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const str = (name: string) => values[name] as string;
  const problems = PORT_FLAGS.filter((f) => !/^\d+$/.test(str(f)) || Number(str(f)) > 65535).map((f) => `--${f} must be an integer 0-65535`);
  for (const f of ['slot-ms', 'slots-per-epoch']) if (!/^[1-9]\d*$/.test(str(f))) problems.push(`--${f} must be a positive integer`);
  if (!/^(0|[1-9]\d*)$/.test(str('txs-per-slot'))) problems.push('--txs-per-slot must be a non-negative integer');
  if (problems.length > 0) fail(problems.join('; '));

  const net = await startLocalnet({
    host: str('host'),
    rpcPort: Number(str('rpc-port')),
    geyserPort: Number(str('geyser-port')),
    marketPort: Number(str('market-port')),
    evmPort: Number(str('evm-port')),
    slotMs: Number(str('slot-ms')),
    slotsPerEpoch: Number(str('slots-per-epoch')),
    txsPerSlot: Number(str('txs-per-slot')),
    seed: str('seed'),
    ...(values['geyser-token'] ? { geyserToken: str('geyser-token') } : {}),
    ...(values['world-dir'] ? { worldSnapshotDir: str('world-dir') } : {}),
  });
  console.log(`localnet rpc ${net.urls.rpc}`);
  console.log(`localnet geyser ${net.urls.geyser}`);
  console.log(`localnet market ${net.urls.market}`);
  console.log(`localnet evm ${net.urls.evm} (chain id ${net.evm.chainId}, LocalUsdc ${net.evm.usdcAddress})`);
  console.log(`localnet stablecoin ${net.stablecoinMint}`);
  const stop = () => void net.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`localnet: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
