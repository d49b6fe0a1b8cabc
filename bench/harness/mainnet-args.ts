/**
 * The command-line options that run the service in mainnet mode against a localnet this benchmark
 * started in its own process: Solana RPC and Geyser, and Base settled by our own relayer on the
 * localnet's EVM (its key written to a file, mode 0600, as an operator would keep it), and the
 * market sources.
 */
import { writeFileSync } from 'node:fs';
import type { Localnet } from '@solana-x402-intel/localnet';

/** Writes the relayer key to `keyFile` and returns the options; `svmPayTo` defaults to any well-formed address. */
export function localnetMainnetArgs(net: Localnet, keyFile: string, svmPayTo: string = net.stablecoinMint): string[] {
  writeFileSync(keyFile, net.evm.relayerKey, { mode: 0o600 });
  return [
    ...['--rpc-url', net.urls.rpc, '--geyser-url', net.urls.geyser, '--evm-rpc-url', net.urls.evm, '--evm-relayer-key', keyFile],
    ...['--svm-pay-to', svmPayTo, '--svm-asset', net.stablecoinMint, '--evm-pay-to', net.evm.usdcAddress, '--evm-asset', net.evm.usdcAddress],
    // The market sources too, so that nothing the service starts reaches for the internet.
    ...['--jupiter-url', net.urls.market, '--geckoterminal-url', net.urls.market, '--magiceden-url', net.urls.market, '--lending-url', net.urls.market],
  ];
}
