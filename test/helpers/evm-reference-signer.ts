/**
 * The signer the reference x402 facilitators (@x402/evm ExactEvmScheme, BatchSettlementEvmScheme)
 * need, over a viem wallet + public client of the local EVM, for differential and
 * interoperability tests.
 *
 * Reads go to the chain unchanged: the local EVM has Multicall3 at its canonical address (placed
 * at start, packages/localnet/contracts/Multicall3.sol), so the reference's `tryAggregate` reads
 * and failure diagnoses run on chain as they would on Base.
 */
import { toFacilitatorEvmSigner } from '@x402/evm';
import { createWalletClient, defineChain, http, publicActions } from 'viem';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';

/** A facilitator signer sending from `key` on the local EVM at `url` (chain id 8453). */
export function referenceEvmSigner(url: string, key: EvmHexKey, confirmationTimeoutMs?: number) {
  const chain = defineChain({
    id: 8453,
    name: 'local-base',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const account = evmAccountFromKey(key);
  const client = createWalletClient({ account, chain, transport: http(url) }).extend(publicActions);
  return toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (a) => client.readContract(a as Parameters<typeof client.readContract>[0]),
      verifyTypedData: (a) => client.verifyTypedData(a as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (a) => client.writeContract(a as Parameters<typeof client.writeContract>[0]),
      sendTransaction: (a) => client.sendTransaction(a),
      waitForTransactionReceipt: (a) => client.waitForTransactionReceipt(a),
      getCode: (a) => client.getCode(a),
    },
    confirmationTimeoutMs ? { confirmationTimeoutMs } : undefined,
  );
}
