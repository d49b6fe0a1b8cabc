/**
 * Builds the Base exact scheme from configuration, checking the upstream once at start so a
 * misconfiguration fails loudly instead of refusing every payment: with a relayer, the RPC's
 * chain id must match the network and the token's EIP-712 name/version must match the terms;
 * with a facilitator, its /supported must list `exact` on the network.
 */
import { createEvmRelayer, type EvmRelayer } from '../../chain/evm/evm-relayer.ts';
import { createEvmTokenReader } from '../../chain/evm/evm-token-reader.ts';
import type { EvmHexKey } from '../../chain/keys/evm-key-file.ts';
import { createEvmExactScheme, type EvmExactSchemeConfig } from './evm-exact.ts';
import { createFacilitatorSettler, facilitatorSignersFor, fetchFacilitatorSupport } from './evm-facilitator-settler.ts';
import { createRelayerSettler } from './evm-relayer-settler.ts';
import { evmChainIdOf } from './evm-verify.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import { BASE_MAINNET_CAIP2 } from '../types/x402-types.ts';

export type EvmSettlement =
  | { readonly kind: 'relayer'; readonly rpcUrl: string; readonly relayerKey: EvmHexKey }
  /** `rpcUrl`: our own read of Base, to check the facilitator's transactions (optional). */
  | { readonly kind: 'facilitator'; readonly url: string; readonly rpcUrl?: string | null };

export interface EvmExactSetup {
  /** Default `eip155:8453`. */
  readonly network?: string;
  /** The terms this scheme will be asked to enforce (the route's asset and EIP-712 domain). */
  readonly asset: string;
  readonly name: string;
  readonly version: string;
  readonly settlement: EvmSettlement;
  /** Receipt / settle wait, ms. */
  readonly settleTimeoutMs?: number;
  /** Per-request wait of the Base RPC, and of the facilitator's /verify and /supported, ms (defaults: the modules'). */
  readonly rpcTimeoutMs?: number;
  readonly facilitatorTimeoutMs?: number;
  readonly verifyOffchain?: EvmExactSchemeConfig['verifyOffchain'];
  /** The relayer to send with (shared with the payment channels); default: one made for this scheme. */
  readonly relayer?: EvmRelayer;
}

/** Checks the upstream and returns the scheme; throws a clear Error on misconfiguration. */
export async function startEvmExactScheme(setup: EvmExactSetup): Promise<ExactScheme> {
  const network = setup.network ?? BASE_MAINNET_CAIP2;
  const chainId = evmChainIdOf(network);
  if (chainId === null) throw new Error(`${network} is not an eip155 network`);
  const extra = setup.verifyOffchain ? { verifyOffchain: setup.verifyOffchain } : {};
  if (setup.settlement.kind === 'facilitator') {
    const support = await fetchFacilitatorSupport(setup.settlement.url, setup.facilitatorTimeoutMs);
    const served = support.kinds.some((k) => k.x402Version === 2 && k.scheme === 'exact' && (k.network === network || k.network === 'eip155:*'));
    if (!served) throw new Error(`facilitator ${setup.settlement.url} does not list x402 v2 exact on ${network}`);
    const settler = createFacilitatorSettler({
      url: setup.settlement.url,
      signers: facilitatorSignersFor(support, network),
      chain: setup.settlement.rpcUrl ? createEvmTokenReader({ rpcUrl: setup.settlement.rpcUrl, asset: setup.asset, timeoutMs: setup.rpcTimeoutMs }) : null,
      ...(setup.settleTimeoutMs ? { settleTimeoutMs: setup.settleTimeoutMs } : {}),
      ...(setup.facilitatorTimeoutMs ? { verifyTimeoutMs: setup.facilitatorTimeoutMs } : {}),
    });
    return createEvmExactScheme({ network, settler, ...extra });
  }
  const { rpcUrl, relayerKey } = setup.settlement;
  const reader = createEvmTokenReader({ rpcUrl, asset: setup.asset, timeoutMs: setup.rpcTimeoutMs });
  const served = await reader.chainId();
  if (served !== chainId) throw new Error(`EVM RPC serves chain id ${served}, but the network is ${network}`);
  const domain = await reader.domain().catch((err: unknown) => {
    throw new Error(`EVM asset ${setup.asset} does not answer name()/version(): ${err instanceof Error ? err.message : String(err)}`);
  });
  if (domain.name !== setup.name || domain.version !== setup.version) {
    throw new Error(`EVM asset ${setup.asset} has EIP-712 domain "${domain.name}" v"${domain.version}", but the terms say "${setup.name}" v"${setup.version}"`);
  }
  const relayer = setup.relayer ?? createEvmRelayer({ rpcUrl, asset: setup.asset, key: relayerKey, chainId, timeoutMs: setup.rpcTimeoutMs });
  const settler = createRelayerSettler({ reader, relayer, ...(setup.settleTimeoutMs ? { receiptTimeoutMs: setup.settleTimeoutMs } : {}) });
  return createEvmExactScheme({ network, settler, ...extra });
}
