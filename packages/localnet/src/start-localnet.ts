/**
 * Starts the whole embedded localnet: one LiteSVM chain with the seeded world, the block
 * producer, and its surfaces on loopback (Solana JSON-RPC, Yellowstone Geyser gRPC, market
 * stand-ins), plus the local EVM standing in for Base. The service's `npm start` calls it when no
 * upstream is configured; `npm run localnet` runs it alone.
 */
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { createBlockProducer, type BlockProducer } from './traffic/block-producer.ts';
import type { LaunchRecord } from './traffic/pool-launches.ts';
import { startLocalEvm, type LocalEvm } from './evm/start-local-evm.ts';
import { startGeyserServer } from './geyser/geyser-server.ts';
import { createLocalChain, type LocalChain } from './chain/local-chain.ts';
import { loadMarketFixture } from './market/market-fixture.ts';
import type { MarketPoolReader } from './market/market-gecko-pool.ts';
import { startMarketServer } from './market/market-server.ts';
import { startRpcServer } from './rpc/rpc-server.ts';
import { prepareServiceAccounts, type ServiceAccounts } from './service-accounts.ts';
import { parseMintAccount } from './encoding/token-accounts.ts';
import type { World } from './world/world.ts';
import { openWorld } from './snapshot/world-snapshot.ts';
import { createWorldPoolReader } from './world/world-pools.ts';
import { createStateSaver, type LocalnetStateOptions, openStateDir, type StateSaver } from './state/localnet-persistence.ts';
import { restoreSolanaAccounts, restoreSolanaTransactions, type SolanaStateTracker, trackSolanaState } from './state/solana-state.ts';
import type { StablecoinFaucetConfig } from './rpc/rpc-context.ts';

export interface LocalnetOptions {
  readonly host: string;
  /** 0 picks ephemeral ports. */
  readonly rpcPort: number;
  readonly geyserPort: number;
  readonly marketPort: number;
  /** Local EVM (Base stand-in, chain id 8453) JSON-RPC port; default 0. */
  readonly evmPort?: number;
  readonly slotMs: number;
  readonly slotsPerEpoch: number;
  readonly seed: string;
  /**
   * Most transactions of background traffic in a slot (default the producer's 20); each slot holds
   * between a quarter of it (at least one) and it; 0: none, the slots still advance. The producer's
   * CPU goes with it for the localnet's whole life, whether anything reads the traffic or not, so a
   * test that reads none runs without it.
   */
  readonly txsPerSlot?: number;
  /** Require this x-token on the Geyser surface. */
  readonly geyserToken?: string;
  /** Start the block producer (default true); tests may step it by hand instead. */
  readonly produce?: boolean;
  /** Produced slots between two pool launches (default one a minute at 400 ms slots); 0: never. */
  readonly launchEverySlots?: number;
  /** Keep the chains' state in this directory across restarts (`fresh` starts over); none: forget at close. */
  readonly state?: LocalnetStateOptions;
  /**
   * Directory of world snapshots: the world is played back from its snapshot there instead of built
   * when one of the same seed, fixture and code is kept, and kept there once built (with `state`,
   * once the state is begun: nothing is written before). Default: the state's directory; none, no state: always built.
   */
  readonly worldSnapshotDir?: string;
  /** Told of each step of the start that can take a while (a line a person reads). */
  readonly progress?: (line: string) => void;
}

export interface Localnet {
  readonly urls: { readonly rpc: string; readonly geyser: string; readonly market: string; readonly evm: string };
  /** The local EVM: chain id 8453 with the EIP-3009 LocalUsdc deployed and a funded relayer. */
  readonly evm: LocalEvm;
  /** The local x402 stablecoin (6 decimals) the faucet mints. */
  readonly stablecoinMint: string;
  readonly chain: LocalChain;
  readonly world: World;
  readonly producer: BlockProducer;
  /** Gives the service's fee payer SOL and creates payTo's stablecoin account (embedded mode). */
  prepareServiceAccounts(accounts: ServiceAccounts): Promise<void>;
  /** The saved state, when kept: whether it was restored, and `begin()` to start writing it (saved at once). */
  readonly state: { readonly restored: boolean; readonly dir: string; begin(): void } | null;
  /** Stops the producer and the surfaces, and saves the state one last time (once begun). */
  close(): Promise<void>;
}

function marketPoolReader(chain: LocalChain, producer: BlockProducer): MarketPoolReader {
  return {
    ...createWorldPoolReader(chain, producer.pools),
    mintSupply(mint) {
      const account = chain.getAccount(mint);
      if (!account) return null;
      const parsed = parseMintAccount(account.data);
      return parsed.ok ? parsed.state.supply : null;
    },
  };
}

/** Builds the world (a few seconds), restores the saved state if any, starts the surfaces and the producer. */
export async function startLocalnet(options: LocalnetOptions): Promise<Localnet> {
  const progress = options.progress ?? (() => {});
  const opened = options.state ? await openStateDir(options.state, options.seed) : null;
  try {
    return await startOn(options, opened, progress);
  } catch (err) {
    opened?.release();
    throw err;
  }
}

type OpenedState = Awaited<ReturnType<typeof openStateDir>>;

/** The chain and its world, with a saved state written over them; what changes from now on is tracked when a state is kept. */
async function chainAndWorld(options: LocalnetOptions, opened: OpenedState | null, progress: (line: string) => void) {
  const saved = opened?.saved ?? null;
  const startUnixSeconds = Math.floor(Date.now() / 1000);
  const createChain = () => {
    const chain = createLocalChain({
      slotMs: options.slotMs,
      slotsPerEpoch: BigInt(options.slotsPerEpoch),
      startUnixSeconds,
      ...(saved ? { startSlot: saved.solana.startSlot, startBlockHeight: saved.solana.startBlockHeight } : {}),
    });
    if (saved) restoreSolanaTransactions(chain, saved.solana);
    return chain;
  };
  const snapshotDir = options.worldSnapshotDir ?? opened?.dir;
  const { chain, world, save } = await openWorld({ seed: options.seed, createChain, progress, ...(snapshotDir ? { snapshotDir } : {}) });
  const saveSnapshot = () => {
    try {
      save();
    } catch (error) {
      console.error(`localnet: could not keep the world's snapshot: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  if (!opened) saveSnapshot();
  if (saved) {
    progress(`restoring ${saved.solana.accounts.length} accounts and ${saved.evm.journal.length} EVM calls saved ${saved.savedAt}`);
    restoreSolanaAccounts(chain, saved.solana);
  }
  const solanaState = opened ? trackSolanaState(chain, new Set(world.traders.map((t) => t.signer.address)), saved?.solana ?? null) : null;
  return { chain, world, solanaState, saveSnapshot };
}

/** The Solana-side surfaces on loopback: JSON-RPC (with the faucets), Geyser, the market stand-ins. */
async function startSurfaces(options: LocalnetOptions, chain: LocalChain, world: World, producer: BlockProducer, faucet: StablecoinFaucetConfig) {
  const rpc = await startRpcServer({
    chain,
    host: options.host,
    port: options.rpcPort,
    faucet,
    // Mainnet RPC operators exclude the largest mints from secondary indexes; so does the localnet.
    excludedFromSecondaryIndexes: [world.largeHolderMint.mint],
  });
  const geyser = await startGeyserServer({
    events: chain,
    head: chain,
    host: options.host,
    port: options.geyserPort,
    ...(options.geyserToken ? { xToken: options.geyserToken } : {}),
  });
  const market = await startMarketServer({
    pools: marketPoolReader(chain, producer),
    events: chain,
    fixture: loadMarketFixture(),
    host: options.host,
    port: options.marketPort,
  });
  return { rpc, geyser, market };
}

/** Saves both chains into the opened state directory: the Solana changes and the EVM journal. */
function stateSaverOf(
  opened: OpenedState,
  { solana, launches }: { readonly solana: SolanaStateTracker; readonly launches: () => readonly LaunchRecord[] },
  evm: LocalEvm,
  seed: string,
): StateSaver {
  let savedEvmCalls = evm.journal().length;
  const source = {
    seed,
    changed: () => solana.changed || evm.journal().length !== savedEvmCalls,
    capture: () => {
      const journal = evm.journal();
      savedEvmCalls = journal.length;
      return { solana: { ...solana.capture(), launches: launches() }, evm: { genesisTime: evm.genesisTime, journal } };
    },
  };
  return createStateSaver(opened, source, (error) =>
    console.error(`localnet: could not save its state: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/** The producer's bounds for at most `most` transactions a slot: from a quarter of it (at least one) to it; 0: none. */
export function trafficBounds(most: number): { readonly minTxsPerSlot: number; readonly maxTxsPerSlot: number } {
  if (!Number.isInteger(most) || most < 0) throw new Error(`txsPerSlot must be a non-negative integer, got ${most}`);
  return { minTxsPerSlot: most === 0 ? 0 : Math.max(1, Math.floor(most / 4)), maxTxsPerSlot: most };
}

async function startOn(options: LocalnetOptions, opened: OpenedState | null, progress: (line: string) => void): Promise<Localnet> {
  const { chain, world, solanaState, saveSnapshot } = await chainAndWorld(options, opened, progress);
  const traffic = options.txsPerSlot === undefined ? {} : trafficBounds(options.txsPerSlot);
  const launches = options.launchEverySlots === undefined ? {} : { launchEverySlots: options.launchEverySlots };
  const restoredLaunches = opened?.saved?.solana.launches;
  const producer = createBlockProducer({
    chain,
    world,
    seed: options.seed,
    slotMs: options.slotMs,
    ...traffic,
    ...launches,
    ...(restoredLaunches ? { restoredLaunches } : {}),
  });
  const mintAuthority = await createKeyPairSignerFromPrivateKeyBytes(world.stablecoin.mintAuthority.secretSeed);
  const faucet = { mint: world.stablecoin.mint, mintAuthority };
  const { rpc, geyser, market } = await startSurfaces(options, chain, world, producer, faucet);
  const restore = opened?.saved?.evm;
  const evm = await startLocalEvm({ host: options.host, port: options.evmPort ?? 0, seed: options.seed, ...(restore ? { restore } : {}), progress });
  const saver = opened && solanaState ? stateSaverOf(opened, { solana: solanaState, launches: producer.launches }, evm, options.seed) : null;
  if (options.produce !== false) producer.start();
  return {
    urls: { rpc: rpc.url, geyser: geyser.url, market: market.url, evm: evm.url },
    evm,
    stablecoinMint: world.stablecoin.mint,
    chain,
    world,
    producer,
    prepareServiceAccounts: (accounts) => prepareServiceAccounts(chain, faucet, accounts),
    state:
      opened && saver
        ? {
            restored: opened.saved !== null,
            dir: opened.dir,
            begin: () => {
              saveSnapshot();
              saver.begin();
            },
          }
        : null,
    async close() {
      producer.stop();
      await Promise.all([rpc.close(), geyser.close(), market.close(), evm.close()]);
      saver?.close();
    },
  };
}
