/**
 * The localnet's public surface: what the service's composition root, its tests and benchmarks
 * use. Everything else in this package is internal to it.
 */
export { startLocalnet, type Localnet, type LocalnetOptions } from './start-localnet.ts';
export { localnetUpstreams, type LocalnetUpstreams } from './localnet-upstreams.ts';
export { SERVICE_FEE_PAYER_LAMPORTS, type ServiceAccounts } from './service-accounts.ts';
export { startRpcServer, type RpcServer } from './rpc/rpc-server.ts';
export { startGeyserServer, type GeyserServer } from './geyser/geyser-server.ts';
export { startLocalEvm, type LocalEvm } from './evm/start-local-evm.ts';
export {
  BATCH_SETTLEMENT_ADDRESS,
  type CanonicalContracts,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  MULTICALL3_ADDRESS,
} from './evm/canonical-contracts.ts';
// The compiled contracts' ABIs, for tests that call them directly.
export { type ContractArtifact, loadContractArtifact, type LocalContractName } from './evm/contract-artifacts.ts';
export { loadMarketFixture, type MarketFixture } from './market/market-fixture.ts';
export type { ProducedTransaction } from './traffic/block-producer.ts';
export type { ChainHeadReader, ExecutedTransaction, LocalChainEvents } from './chain/types.ts';
export { signerFromSeed, type WorldSigner } from './signing/world-keys.ts';
export { buildSignedWire, computeBudgetIxs, transferSolIx, type SignedWire } from './signing/world-transactions.ts';
// Token account bytes written independently of the service's codec, for tests that check it.
export { encodeMintAccount, encodeTlvEntries, encodeTokenAccount, type ExtensionInput, type KnownExtensionInput } from './encoding/token-accounts.ts';
