/**
 * The signer the reference x402 facilitator (@x402/evm ExactEvmScheme) needs, over a viem
 * wallet + public client of the local EVM, for differential and interoperability tests.
 *
 * The local EVM has no Multicall3 at its canonical address, and the reference diagnoses a failed
 * simulation through Multicall3 `tryAggregate(false, calls)`. This signer answers that one call by
 * making the sub-calls one by one over eth_call (same semantics: a reverting sub-call is
 * `success: false`), so the reference can name the reason on this chain.
 */
import { toFacilitatorEvmSigner } from '@x402/evm';
import { createWalletClient, defineChain, http, publicActions } from 'viem';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/evm-key-file.ts';

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

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
  const readContract = async (args: { address: `0x${string}`; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }): Promise<unknown> => {
    if (args.address.toLowerCase() === MULTICALL3.toLowerCase() && args.functionName === 'tryAggregate') {
      const [, calls] = args.args as [boolean, { target: `0x${string}`; callData: `0x${string}` }[]];
      return Promise.all(
        calls.map(async (c) => {
          try {
            const { data } = await client.call({ to: c.target, data: c.callData });
            return { success: true, returnData: data ?? '0x' };
          } catch {
            return { success: false, returnData: '0x' };
          }
        }),
      );
    }
    return client.readContract(args as Parameters<typeof client.readContract>[0]);
  };
  return toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract,
      verifyTypedData: (a) => client.verifyTypedData(a as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (a) => client.writeContract(a as Parameters<typeof client.writeContract>[0]),
      sendTransaction: (a) => client.sendTransaction(a),
      waitForTransactionReceipt: (a) => client.waitForTransactionReceipt(a),
      getCode: (a) => client.getCode(a),
    },
    confirmationTimeoutMs ? { confirmationTimeoutMs } : undefined,
  );
}
