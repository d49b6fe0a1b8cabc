/**
 * How the service sees the embedded localnet, as plain data in the shape of the service's
 * upstream settings (the same an operator configures for mainnet), plus the loopback URLs its
 * /health shows and the hook that readies its accounts. The package does not import the service:
 * the service checks this shape where it takes it.
 */
import type { ServiceAccounts } from './service-accounts.ts';
import type { Localnet } from './start-localnet.ts';

/** The service's upstreams served by a running localnet. */
export interface LocalnetUpstreams {
  readonly rpcUrl: string;
  readonly geyserUrl: string;
  readonly market: { readonly jupiter: string; readonly geckoterminal: string; readonly magiceden: string; readonly lending: string };
  /** The localnet's stablecoin mint. */
  readonly svmAsset: string;
  /** The local EVM: its RPC, the LocalUsdc terms and a funded relayer key (local only). */
  readonly evm: { readonly rpcUrl: string; readonly asset: string; readonly name: string; readonly version: string; readonly relayerKey: `0x${string}` };
  /** Loopback URLs, no secrets. */
  readonly localnet: Readonly<Record<string, string>>;
  /** Called by the service once its fee payer and payTo are known, before it takes payments. */
  prepareAccounts(accounts: ServiceAccounts): Promise<void>;
}

/** Upstreams pointing at a running localnet. */
export function localnetUpstreams(net: Localnet): LocalnetUpstreams {
  const { rpc, geyser, market, evm } = net.urls;
  return {
    rpcUrl: rpc,
    geyserUrl: geyser,
    // One stand-in server answers every market source at its real path layout.
    market: { jupiter: market, geckoterminal: market, magiceden: market, lending: market },
    svmAsset: net.stablecoinMint,
    evm: { rpcUrl: evm, asset: net.evm.usdcAddress, name: net.evm.name, version: net.evm.version, relayerKey: net.evm.relayerKey as `0x${string}` },
    localnet: { rpcUrl: rpc, geyserUrl: geyser, marketUrl: market, evmRpcUrl: evm },
    prepareAccounts: (accounts) => net.prepareServiceAccounts(accounts),
  };
}
