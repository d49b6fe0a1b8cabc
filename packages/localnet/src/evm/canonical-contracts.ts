/**
 * Places the x402 batch-settlement contracts and Multicall3 at the addresses the official
 * @x402/evm SDK and common clients hard-code, with EDR's `hardhat_setCode`. Set-code writes the
 * runtime code only (no constructor runs), which these contracts are written for: they keep no
 * immutables and need no initialized storage, so placement is complete once the code is there.
 */
import type { EdrChain } from './edr-chain.ts';
import { loadContractArtifact, type LocalContractName } from './contract-artifacts.ts';

/** `BATCH_SETTLEMENT_ADDRESS` of @x402/evm: the channel escrow. */
export const BATCH_SETTLEMENT_ADDRESS = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003';
/** `ERC3009_DEPOSIT_COLLECTOR_ADDRESS` of @x402/evm: pulls deposits with receiveWithAuthorization. */
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS = '0x4020806089470a89826cB9fB1f4059150b550004';
/** Multicall3's address on every public chain; the SDK's facilitators read through `tryAggregate`. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** Where each placed contract lives. */
export interface CanonicalContracts {
  readonly batchSettlement: string;
  readonly erc3009DepositCollector: string;
  readonly multicall3: string;
}

const PLACEMENTS: ReadonlyArray<readonly [LocalContractName, string]> = [
  ['X402BatchSettlement', BATCH_SETTLEMENT_ADDRESS],
  ['Erc3009DepositCollector', ERC3009_DEPOSIT_COLLECTOR_ADDRESS],
  ['Multicall3', MULTICALL3_ADDRESS],
];

/** Sets each contract's runtime code at its address and reads it back; throws if any differs. */
export async function placeCanonicalContracts(chain: EdrChain): Promise<CanonicalContracts> {
  for (const [name, address] of PLACEMENTS) {
    const code = loadContractArtifact(name).deployedBytecode;
    const set = await chain.request('hardhat_setCode', [address, code]);
    if ('error' in set) throw new Error(`local EVM: could not place ${name} at ${address}: ${set.error.message}`);
    const read = await chain.request('eth_getCode', [address, 'latest']);
    if (!('result' in read) || String(read.result).toLowerCase() !== code.toLowerCase())
      throw new Error(`local EVM: ${name} at ${address} does not hold the placed code`);
  }
  return { batchSettlement: BATCH_SETTLEMENT_ADDRESS, erc3009DepositCollector: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, multicall3: MULTICALL3_ADDRESS };
}
