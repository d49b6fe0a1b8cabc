/**
 * The terms each route charges, from the options and the upstreams: which stablecoin, paid to
 * whom, on Solana and Base, and the channel terms when channels are offered. Apart from the
 * payment stack because the service needs the terms (the fee payer, payTo) before the stack starts.
 */
import { resolve } from 'node:path';
import { evmAddressOfKey, loadOrCreateEvmKey, readEvmKeyFile, type EvmHexKey } from '../chain/keys/evm-key-file.ts';
import type { Config } from '../config.ts';
import { ConfigError } from '../errors.ts';
import type { ChannelTerms, PaymentTermsConfig } from '../x402/delivery/payment-terms.ts';

/** The embedded local EVM: its RPC, token terms and a funded relayer key (local only). */
export interface EmbeddedEvm {
  readonly rpcUrl: string;
  readonly asset: string;
  readonly name: string;
  readonly version: string;
  readonly relayerKey: `0x${string}`;
}

/** What of the upstreams the payment side reads: defaults for what the options leave unset. */
export interface PaymentUpstreams {
  readonly svmAsset?: string;
  readonly evm?: EmbeddedEvm;
}

/** The options that name the payment terms. */
export type PaymentTermsOptions = Pick<
  Config,
  | 'dataDir'
  | 'svmAsset'
  | 'svmPayTo'
  | 'evmAsset'
  | 'evmPayTo'
  | 'evmAssetName'
  | 'evmAssetVersion'
  | 'channels'
  | 'facilitatorUrl'
  | 'evmRpcUrl'
  | 'evmRelayerKeyPath'
>;

/** The key that signs our channel claims and refunds: the configured file, or one made once under the data dir. */
export function channelAuthorizerKey(config: Readonly<Pick<Config, 'dataDir' | 'channels'>>): EvmHexKey {
  const path = config.channels?.authorizerKeyPath;
  return path ? readEvmKeyFile(path) : loadOrCreateEvmKey(resolve(config.dataDir, 'evm-channel-authorizer.key'));
}

/** Channels are offered when asked for and we send Base transactions ourselves (a remote facilitator's path has none). */
function channelTermsOf(config: Readonly<PaymentTermsOptions>, upstreams: PaymentUpstreams): ChannelTerms | null {
  if (!config.channels || config.facilitatorUrl) return null;
  if (!(config.evmRpcUrl && config.evmRelayerKeyPath) && !upstreams.evm) return null;
  return {
    receiverAuthorizer: evmAddressOfKey(channelAuthorizerKey(config)),
    withdrawDelay: config.channels.withdrawDelaySeconds,
    minDepositCalls: config.channels.minDepositCalls,
  };
}

/** The terms of both networks; fails with a ConfigError when a stablecoin is unknown. */
export function paymentTerms(config: Readonly<PaymentTermsOptions>, feePayer: string, upstreams: PaymentUpstreams): PaymentTermsConfig {
  const svmAsset = config.svmAsset ?? upstreams.svmAsset;
  if (!svmAsset) throw new ConfigError(['no Solana stablecoin mint: set --svm-asset']);
  const evmPayTo = config.evmPayTo ?? evmAddressOfKey(loadOrCreateEvmKey(resolve(config.dataDir, 'evm-payto.key')));
  const evmAsset = config.evmAsset ?? upstreams.evm?.asset;
  if (!evmAsset) throw new ConfigError(['no Base stablecoin address: set --evm-asset']);
  return {
    svm: { payTo: config.svmPayTo ?? feePayer, asset: svmAsset, feePayer },
    evm: { payTo: evmPayTo, asset: evmAsset, name: upstreams.evm?.name ?? config.evmAssetName, version: upstreams.evm?.version ?? config.evmAssetVersion },
    channel: channelTermsOf(config, upstreams),
  };
}
