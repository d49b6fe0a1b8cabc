/**
 * The local EVM itself: Hardhat's EDR (Rust, in-process) as an Ethereum JSON-RPC provider. The
 * only module that imports `@nomicfoundation/edr`. Measured on the project machine: context +
 * provider in ~12 ms, so every `npm start` and test can afford a fresh chain.
 */
import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  MineOrdering,
  l1GenesisState,
  l1HardforkFromString,
  l1HardforkToString,
  l1ProviderFactory,
  type Provider,
  type ProviderConfig,
} from '@nomicfoundation/edr';

/** Prague matches Base's current execution rules (Isthmus) closely enough for ERC-20 work. */
const HARDFORK = 'Prague';
/** Under EIP-7825's 2^24 per-transaction cap, which EDR enforces from Osaka. */
const DEFAULT_TX_GAS_LIMIT = 16_000_000n;
const BLOCK_GAS_LIMIT = 60_000_000n;
/** 1 gwei base fee at genesis; it floats per EIP-1559 afterwards. */
const INITIAL_BASE_FEE_WEI = 1_000_000_000n;

export interface EdrChainOptions {
  readonly chainId: bigint;
  /** 0x-prefixed secret keys EDR signs `eth_sendTransaction` for (the localnet deployer). */
  readonly ownedKeys: readonly string[];
  /** Accounts with an ETH balance at genesis. */
  readonly balances: ReadonlyArray<{ readonly address: string; readonly wei: bigint }>;
  /** Unix seconds of the genesis block (default now); a restored localnet keeps its first run's. */
  readonly genesisTime?: number;
}

/** A JSON-RPC answer without envelope: exactly one of result or error. */
export type RpcAnswer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

export interface EdrChain {
  /** Handles one JSON-RPC call; EDR's own errors come back as `{ error }`, never thrown. */
  request(method: string, params: readonly unknown[]): Promise<RpcAnswer>;
}

let contextPromise: Promise<EdrContext> | null = null;

/** EDR allows one context per process ("should only be called once"), shared by all chains. */
function edrContext(): Promise<EdrContext> {
  contextPromise ??= (async () => {
    const context = new EdrContext();
    await context.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return context;
  })();
  return contextPromise;
}

function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
}

function providerConfig(options: EdrChainOptions): ProviderConfig {
  const hardfork = l1HardforkFromString(HARDFORK);
  const funded = options.balances.map((b) => ({ address: hexToBytes(b.address), balance: b.wei }));
  return {
    // Same-second blocks keep block time on the wall clock under load: with one block per
    // transaction and strictly increasing timestamps, a burst of settlements would push chain
    // time ahead of real time and expire authorizations early.
    allowBlocksWithSameTimestamp: true,
    allowUnlimitedContractSize: false,
    // A reverted eth_call answers a JSON-RPC error with the revert data, as Base nodes do;
    // answering the revert bytes as a result would make callers read a revert as success.
    bailOnCallFailure: true,
    bailOnTransactionFailure: false,
    chainId: options.chainId,
    coinbase: new Uint8Array(20),
    defaultTransactionGasLimit: DEFAULT_TX_GAS_LIMIT,
    genesisState: [...l1GenesisState(hardfork), ...funded],
    hardfork: l1HardforkToString(hardfork),
    initialBaseFeePerGas: INITIAL_BASE_FEE_WEI,
    minGasPrice: 0n,
    // Automine: every accepted transaction is mined at once, so a receipt is one round trip away.
    mining: { autoMine: true, memPool: { order: MineOrdering.Fifo } },
    network: { genesisBlockGasLimit: BLOCK_GAS_LIMIT, genesisBlockTime: BigInt(options.genesisTime ?? Math.floor(Date.now() / 1000)) },
    networkId: options.chainId,
    observability: {},
    ownedAccounts: [...options.ownedKeys],
    precompileOverrides: [],
  };
}

/** Creates a fresh in-memory chain. */
export async function createEdrChain(options: EdrChainOptions): Promise<EdrChain> {
  const context = await edrContext();
  const provider: Provider = await context.createProvider(
    L1_CHAIN_TYPE,
    providerConfig(options),
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  );
  let nextId = 1;
  return {
    async request(method, params) {
      const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }));
      const data: unknown = typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
      return data as RpcAnswer;
    },
  };
}
