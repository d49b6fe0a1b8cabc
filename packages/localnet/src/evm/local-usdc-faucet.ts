/**
 * Deploys LocalUsdc on the local EVM and funds addresses with it and with ETH, all through real
 * transactions from the localnet's deployer (an EDR-owned key), so funding shows up in blocks,
 * logs and balances exactly like any transfer.
 */
import { addressWord, decodeString, encodeCall, encodeStrings, uintWord } from './evm-abi-words.ts';
import type { EdrChain, RpcAnswer } from './edr-chain.ts';
import { selectorOf, type LocalUsdcArtifact } from './contract-artifacts.ts';

export interface LocalUsdcFaucet {
  readonly usdcAddress: string;
  /** Mints `amountUnits` (6 decimals) to `address`; returns the transaction hash. */
  fundUsdc(address: string, amountUnits: bigint): Promise<string>;
  /** Sends `wei` from the deployer to `address`; returns the transaction hash. */
  fundEth(address: string, wei: bigint): Promise<string>;
  /** An eth_call on the token, for name()/version()/balanceOf reads. */
  call(data: string): Promise<string>;
}

function unwrap(answer: RpcAnswer, what: string): unknown {
  if ('error' in answer) throw new Error(`${what}: ${answer.error.message}`);
  return answer.result;
}

/** Sends from an EDR-owned account and returns the mined receipt (automine: same call). */
async function sendAndConfirm(chain: EdrChain, tx: Record<string, string>, what: string): Promise<{ transactionHash: string; contractAddress: string | null }> {
  const hash = unwrap(await chain.request('eth_sendTransaction', [tx]), what) as string;
  const receipt = unwrap(await chain.request('eth_getTransactionReceipt', [hash]), what) as {
    status: string;
    transactionHash: string;
    contractAddress: string | null;
  } | null;
  if (!receipt) throw new Error(`${what}: transaction ${hash} was not mined`);
  if (receipt.status !== '0x1') throw new Error(`${what}: transaction ${hash} reverted`);
  return receipt;
}

/** Deploys LocalUsdc(name, version) from `deployer` and returns its faucet. */
export async function deployLocalUsdc(chain: EdrChain, artifact: LocalUsdcArtifact, deployer: string, name: string, version: string): Promise<LocalUsdcFaucet> {
  const deploy = await sendAndConfirm(chain, { from: deployer, data: artifact.bytecode + encodeStrings([name, version]) }, 'deploy LocalUsdc');
  const usdcAddress = deploy.contractAddress;
  if (!usdcAddress) throw new Error('deploy LocalUsdc: the receipt has no contract address');
  const mintSelector = selectorOf(artifact, 'mint(address,uint256)');
  return {
    usdcAddress,
    async fundUsdc(address, amountUnits) {
      const data = encodeCall(mintSelector, [addressWord(address), uintWord(amountUnits)]);
      return (await sendAndConfirm(chain, { from: deployer, to: usdcAddress, data }, 'fund stablecoin')).transactionHash;
    },
    async fundEth(address, wei) {
      addressWord(address);
      return (await sendAndConfirm(chain, { from: deployer, to: address, value: `0x${wei.toString(16)}` }, 'fund ETH')).transactionHash;
    },
    async call(data) {
      return unwrap(await chain.request('eth_call', [{ to: usdcAddress, data }, 'latest']), 'eth_call LocalUsdc') as string;
    },
  };
}

/** Reads a string getter such as name() or version(). */
export async function readStringGetter(faucet: LocalUsdcFaucet, artifact: LocalUsdcArtifact, signature: string): Promise<string> {
  return decodeString(await faucet.call(encodeCall(selectorOf(artifact, signature), [])));
}
