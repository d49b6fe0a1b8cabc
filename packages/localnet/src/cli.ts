/**
 * `npm run localnet -- --rpc-port P --geyser-port P --market-port P`: the embedded localnet on
 * its own, for pointing other clients at it. Prints its URLs and the stablecoin mint; stops on
 * SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startLocalnet } from './start-localnet.ts';

const PORT_FLAGS = ['rpc-port', 'geyser-port', 'market-port', 'evm-port'] as const;

function fail(message: string): never {
  console.error(`localnet: ${message}`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        'rpc-port': { type: 'string', default: '8899' },
        'geyser-port': { type: 'string', default: '10000' },
        'market-port': { type: 'string', default: '8900' },
        'evm-port': { type: 'string', default: '8545' },
        'slot-ms': { type: 'string', default: '400' },
        'slots-per-epoch': { type: 'string', default: '432' },
        seed: { type: 'string', default: 'localnet-1' },
        'geyser-token': { type: 'string' },
      },
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const problems = PORT_FLAGS.filter((f) => !/^\d+$/.test(values[f]!) || Number(values[f]) > 65535).map((f) => `--${f} must be an integer 0-65535`);
  for (const f of ['slot-ms', 'slots-per-epoch']) if (!/^[1-9]\d*$/.test(values[f]!)) problems.push(`--${f} must be a positive integer`);
  if (problems.length > 0) fail(problems.join('; '));

  const net = await startLocalnet({
    host: values.host!,
    rpcPort: Number(values['rpc-port']),
    geyserPort: Number(values['geyser-port']),
    marketPort: Number(values['market-port']),
    evmPort: Number(values['evm-port']),
    slotMs: Number(values['slot-ms']),
    slotsPerEpoch: Number(values['slots-per-epoch']),
    seed: values.seed!,
    ...(values['geyser-token'] ? { geyserToken: values['geyser-token'] } : {}),
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
