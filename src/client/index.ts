/**
 * `solana-x402-intel/client`: the client library of the service (docs/client.md). A bot creates
 * one client and calls paid routes through it; each call is paid with its first request.
 */
export type { PaidPath, ResponseOf } from '../catalog/endpoints.ts';
export { type EvmHexKey, generateEvmKey, readEvmKeyFile } from '../chain/keys/evm-key-file.ts';
export { type KeyPairSigner, readSolanaKeypairFile, solanaSignerFromBytes } from '../chain/keys/solana-keypair-file.ts';
export type { CheckReport } from '../receipt-checks/receipt-check.ts';
export type { CallResult, NotPaid, PaidAnswer, PaymentSent } from './call-result.ts';
export type { ClientChannelStorage } from './channel-lane.ts';
export { createIntelClient, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type IntelClient, type IntelClientConfig, type Query } from './intel-client.ts';
export type { CallOptions } from './paid-call.ts';
export { DEFAULT_RECONNECT, type ReconnectOptions, type StreamOptions, type StreamResult, type StreamUpdate } from './stream-reconnect.ts';
export { LANES, type LaneName } from './payment-lane.ts';
export type { ReceiptOptions } from './receipt-keeper.ts';
export type { DecodedReceipt, SavedReceipt, ServiceReceipt } from './receipt-files.ts';
export type { SpendLimit, SpendTotals } from './spend-limits.ts';
export type { PaymentResponse, Terms } from './x402-wire.ts';
