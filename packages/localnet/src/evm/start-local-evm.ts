/**
 * The embedded default's Base stand-in: a fresh EDR chain with chain id 8453 (so challenges say
 * `eip155:8453` locally too), LocalUsdc deployed from a deployer key derived from the localnet
 * seed (same seed, same token address), the x402 batch-settlement contracts and Multicall3 at
 * their canonical addresses, and an Ethereum JSON-RPC endpoint on loopback.
 */
import { createHash } from 'node:crypto';
import { createEdrChain } from './edr-chain.ts';
import { startEvmRpcServer } from './evm-rpc-server.ts';
import { type CanonicalContracts, placeCanonicalContracts } from './canonical-contracts.ts';
import { ensureLocalContractArtifacts } from './compile-contracts.ts';
import { loadLocalUsdcArtifact } from './contract-artifacts.ts';
import { deployLocalUsdc, readStringGetter } from './local-usdc-faucet.ts';
import { type EvmJournalEntry, journalChain, pinToGenesis, replayJournal } from '../state/evm-journal.ts';

/** Base mainnet's chain id, served locally. */
export const LOCAL_EVM_CHAIN_ID = 8453;
/** EIP-712 domain of Base USDC, reproduced so clients sign the same shape locally. */
export const LOCAL_USDC_NAME = 'USD Coin';
export const LOCAL_USDC_VERSION = '2';
/** The deployer's genesis ETH: pays deployment and every faucet grant. */
const DEPLOYER_GENESIS_WEI = 1_000_000n * 10n ** 18n;
/** The seed-derived relayer's genesis ETH: thousands of settlements at local gas prices. */
const RELAYER_GENESIS_WEI = 100n * 10n ** 18n;

export interface LocalEvmOptions {
  readonly host: string;
  /** 0 picks an ephemeral port. */
  readonly port: number;
  readonly seed: string;
  /** A previous run's chain to rebuild (the localnet's saved state): its genesis time and journal. */
  readonly restore?: { readonly genesisTime: number; readonly journal: readonly EvmJournalEntry[] };
  /** Told of a step that can take a while (compiling the contracts). */
  readonly progress?: (line: string) => void;
}

export interface LocalEvm {
  /** Ethereum JSON-RPC over HTTP on loopback. */
  readonly url: string;
  readonly chainId: number;
  readonly usdcAddress: string;
  /** The x402 batch-settlement escrow, its ERC-3009 deposit collector and Multicall3 (set-code placed). */
  readonly contracts: CanonicalContracts;
  /** EIP-712 domain name and version, read back from the deployed contract. */
  readonly name: string;
  readonly version: string;
  /** A seed-derived key funded with ETH at genesis, usable as a settlement relayer. */
  readonly relayerKey: string;
  readonly relayerAddress: string;
  /** Start-up time, ms (chain + deployment + listener). */
  readonly startupMs: number;
  /** Unix seconds of the genesis block: with the journal, what a restart needs to rebuild this chain. */
  readonly genesisTime: number;
  /** Every call that changed the chain since its set-up, replayed ones included (the saved state). */
  journal(): readonly EvmJournalEntry[];
  fundUsdc(address: string, amountUnits: bigint): Promise<string>;
  fundEth(address: string, wei: bigint): Promise<string>;
  close(): Promise<void>;
}

/** A 32-byte secp256k1 key from the seed; a hash is below the group order with overwhelming odds. */
function seedKey(seed: string, role: string): string {
  return `0x${createHash('sha256').update(`x402-intel localnet evm ${role}\0${seed}`).digest('hex')}`;
}

/** Starts the chain, deploys LocalUsdc, places the canonical contracts, funds the relayer and listens. */
export async function startLocalEvm(options: LocalEvmOptions): Promise<LocalEvm> {
  const started = performance.now();
  await ensureLocalContractArtifacts(options.progress);
  const artifact = loadLocalUsdcArtifact();
  const relayerKey = seedKey(options.seed, 'relayer');
  const genesisTime = options.restore?.genesisTime ?? Math.floor(Date.now() / 1000);
  const edr = await createEdrChain({
    chainId: BigInt(LOCAL_EVM_CHAIN_ID),
    ownedKeys: [seedKey(options.seed, 'deployer'), relayerKey],
    balances: [],
    genesisTime,
  });
  // The set-up's blocks at the genesis time, as in the first run, so the journal's times follow them.
  if (options.restore) await pinToGenesis(edr, genesisTime);
  const chain = journalChain(edr, options.restore?.journal);
  const accounts = await chain.request('eth_accounts', []);
  if (!('result' in accounts) || !Array.isArray(accounts.result) || accounts.result.length !== 2)
    throw new Error('local EVM: eth_accounts did not list the two localnet keys');
  const [deployer, relayerAddress] = accounts.result as [string, string];
  // Balances are set after the fact because the addresses come from EDR (no key math here).
  for (const [address, wei] of [
    [deployer, DEPLOYER_GENESIS_WEI],
    [relayerAddress, RELAYER_GENESIS_WEI],
  ] as const) {
    const set = await chain.request('hardhat_setBalance', [address, `0x${wei.toString(16)}`]);
    if ('error' in set) throw new Error(`local EVM: could not fund ${address}: ${set.error.message}`);
  }
  const faucet = await deployLocalUsdc(chain, artifact, deployer, LOCAL_USDC_NAME, LOCAL_USDC_VERSION);
  const contracts = await placeCanonicalContracts(chain);
  const [name, version] = await Promise.all([readStringGetter(faucet, artifact, 'name()'), readStringGetter(faucet, artifact, 'version()')]);
  if (options.restore) await replayJournal(edr, options.restore.journal, Math.floor(Date.now() / 1000));
  chain.start();
  const server = await startEvmRpcServer({ chain, host: options.host, port: options.port, fundStablecoin: faucet.fundUsdc });
  return {
    url: server.url,
    chainId: LOCAL_EVM_CHAIN_ID,
    usdcAddress: faucet.usdcAddress,
    contracts,
    name,
    version,
    relayerKey,
    relayerAddress,
    startupMs: performance.now() - started,
    genesisTime,
    journal: () => chain.entries(),
    fundUsdc: faucet.fundUsdc,
    fundEth: faucet.fundEth,
    close: () => server.close(),
  };
}
