/**
 * How the service sees the embedded localnet: the same Upstreams shape an operator configures
 * for mainnet, plus the loopback URLs /health shows. Shared by main.ts and the test helpers.
 */
import type { Upstreams } from '../service.ts';
import type { Localnet } from './start-localnet.ts';

/** Upstreams pointing at a running localnet. */
export function localnetUpstreams(net: Localnet): Upstreams {
  const { rpc, geyser, market, evm } = net.urls;
  return {
    rpcUrl: rpc,
    geyserUrl: geyser,
    // One stand-in server answers every market source at its real path layout.
    market: { jupiter: market, geckoterminal: market, magiceden: market, lending: market },
    svmAsset: net.stablecoinMint,
    evm: { rpcUrl: evm, asset: net.evm.usdcAddress, name: net.evm.name, version: net.evm.version, relayerKey: net.evm.relayerKey as `0x${string}` },
    localnet: { rpcUrl: rpc, geyserUrl: geyser, marketUrl: market, evmRpcUrl: evm },
  };
}
