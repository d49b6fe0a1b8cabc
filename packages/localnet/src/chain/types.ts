/**
 * The contract between the embedded localnet's chain core (`local-chain.ts`, LiteSVM plus our
 * own indexes and block producer) and the surfaces that expose it: the JSON-RPC server, the
 * Yellowstone Geyser gRPC server and the market stand-ins. Everything here is plain data so a
 * surface can be tested against a synthetic event source.
 *
 * Units: slots, lamports, block heights and compute units are `bigint`; addresses, signatures and
 * blockhashes are base58 strings; instruction data is raw bytes.
 */

/** Agave commitment levels. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Slot lifecycle as Geyser reports it (SlotStatus in geyser.proto, the subset we produce). */
export type SlotStatus = 'processed' | 'confirmed' | 'finalized';

export interface SlotEvent {
  readonly slot: bigint;
  readonly parent: bigint | null;
  readonly status: SlotStatus;
}

export interface CompiledInstructionData {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: Uint8Array;
  /** Only for inner instructions: invocation depth as Agave reports it (top level = 1). */
  readonly stackHeight?: number;
}

export interface MessageHeaderData {
  readonly numRequiredSignatures: number;
  readonly numReadonlySignedAccounts: number;
  readonly numReadonlyUnsignedAccounts: number;
}

/** A token balance row as in Agave's `preTokenBalances` / `postTokenBalances`. */
export interface TokenBalanceData {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  /** Raw amount in base units, decimal string. */
  readonly amount: string;
  readonly decimals: number;
}

/** One executed (landed or failed) transaction, everything RPC and Geyser need to render it. */
export interface ExecutedTransaction {
  readonly signature: string;
  readonly signatures: readonly string[];
  readonly slot: bigint;
  /** Position inside its block. */
  readonly index: number;
  readonly isVote: boolean;
  /** Agave `TransactionError` JSON (e.g. `{ InstructionError: [0, { Custom: 1 }] }`), null on success. */
  readonly err: unknown;
  readonly fee: bigint;
  readonly computeUnitsConsumed: bigint;
  readonly logs: readonly string[];
  readonly header: MessageHeaderData;
  /** Static account keys in message order (legacy messages only on the localnet). */
  readonly accountKeys: readonly string[];
  readonly recentBlockhash: string;
  readonly instructions: readonly CompiledInstructionData[];
  readonly innerInstructions: readonly { readonly index: number; readonly instructions: readonly CompiledInstructionData[] }[];
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalanceData[];
  readonly postTokenBalances: readonly TokenBalanceData[];
  /** The signed wire transaction exactly as submitted. */
  readonly wire: Uint8Array;
  /** Unix seconds of the slot's block. */
  readonly blockTime: number;
  /** Message version (added by the chain core; absent means legacy). */
  readonly version?: 'legacy' | 0;
  /**
   * Addresses a v0 message loaded from lookup tables (added by the chain core). When present,
   * `accountKeys` is static keys followed by these writable then readonly keys, the order that
   * balances and instruction account indexes use, as in Agave.
   */
  readonly loadedAddresses?: { readonly writable: readonly string[]; readonly readonly: readonly string[] };
}

export interface BlockMetaEvent {
  readonly slot: bigint;
  readonly parentSlot: bigint;
  readonly blockhash: string;
  readonly parentBlockhash: string;
  readonly blockTime: number;
  readonly blockHeight: bigint;
  readonly executedTransactionCount: number;
}

export interface EpochInfoData {
  readonly epoch: bigint;
  readonly slotIndex: bigint;
  readonly slotsInEpoch: bigint;
  readonly absoluteSlot: bigint;
  readonly blockHeight: bigint;
  readonly transactionCount: bigint;
}

/**
 * Events a chain emits, in order per slot: `transaction` for each transaction of the slot,
 * then `blockMeta`, then `slot` with status `processed`; later `slot` events move earlier slots to
 * `confirmed` and `finalized`.
 */
export interface LocalChainEvents {
  on(event: 'slot', listener: (e: SlotEvent) => void): unknown;
  on(event: 'transaction', listener: (tx: ExecutedTransaction) => void): unknown;
  on(event: 'blockMeta', listener: (b: BlockMetaEvent) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- must accept EventEmitter's own signature
  off(event: 'slot' | 'transaction' | 'blockMeta', listener: (...args: never[]) => void): unknown;
}

/** The read side of the chain that the Geyser unary methods need. */
export interface ChainHeadReader {
  slot(commitment: Commitment): bigint;
  blockHeight(commitment: Commitment): bigint;
  latestBlockhash(commitment: Commitment): { readonly slot: bigint; readonly blockhash: string; readonly lastValidBlockHeight: bigint };
  isBlockhashValid(blockhash: string): { readonly slot: bigint; readonly valid: boolean };
  /** e.g. `{ "solana-core": "2.2.0", "feature-set": 0 }` as getVersion reports. */
  version(): { readonly 'solana-core': string; readonly 'feature-set': number };
}

/** A constant-product pool as the market stand-ins quote it, reserves read from chain. */
export interface PoolState {
  readonly address: string;
  readonly label: string;
  readonly mintA: string;
  readonly mintB: string;
  /** Token accounts holding the reserves; swaps show up as balance changes on them. */
  readonly vaultA: string;
  readonly vaultB: string;
  readonly decimalsA: number;
  readonly decimalsB: number;
  readonly reserveA: bigint;
  readonly reserveB: bigint;
  /** Fee in basis points taken from the input amount. */
  readonly feeBps: number;
  /** Unix seconds the pool was created in the world. */
  readonly createdAt: number;
}

export interface PoolReader {
  pools(): readonly PoolState[];
  slot(): bigint;
}
