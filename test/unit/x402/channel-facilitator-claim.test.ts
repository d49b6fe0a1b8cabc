/**
 * The claim batch as our facilitator hands it to the official scheme: rows of our own receiver
 * authorizer go with the authorizer's signature made natively (the scheme then never runs viem's
 * JavaScript `signClaimBatch`, and the bytes are the SDK's); a row naming another receiver
 * authorizer, or another network than the channels', goes without, and the scheme refuses it
 * itself as before. The chain under it is a recording fake: nothing is sent anywhere.
 */
import { claimBatchTypes } from '@x402/evm';
import { computeChannelId } from '@x402/evm/batch-settlement/client';
import { describe, expect, it } from 'vitest';
import { batchSettlementDomain } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { createEvmChannelChain, type EvmChannelChain } from '../../../src/chain/evm/evm-channel-chain.ts';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { claimEntry, createChannelFacilitator } from '../../../src/x402/channels/channel-facilitator.ts';
import type { PaymentRequirements } from '../../../src/x402/types/x402-types.ts';

const KEY = generateEvmKey();
const authorizer = evmAccountFromKey(KEY);
const stranger = evmAccountFromKey(generateEvmKey());
const payer = evmAccountFromKey(generateEvmKey());
const HASH = `0x${'ab'.repeat(32)}` as const;

const configOf = (receiverAuthorizer: `0x${string}`) => ({
  payer: payer.address,
  payerAuthorizer: payer.address,
  receiver: evmAccountFromKey(generateEvmKey()).address,
  receiverAuthorizer,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const,
  withdrawDelay: 86400,
  salt: `0x${'07'.repeat(32)}` as `0x${string}`,
});

/** A chain whose simulation and send record the claim's arguments and succeed, and which records what viem's signer is asked. */
function chainRecording() {
  const relayer = { address: authorizer.address, sendCall: async () => HASH } as never;
  const real = createEvmChannelChain({ rpcUrl: 'http://127.0.0.1:9', relayer, authorizerKey: KEY });
  const simulated: unknown[][] = [];
  const viemSigned: unknown[] = [];
  const chain: EvmChannelChain = {
    ...real,
    authorizer: {
      ...real.authorizer,
      signTypedData: async (params) => {
        viemSigned.push(params);
        return real.authorizer.signTypedData(params);
      },
    },
    signer: {
      ...real.signer,
      readContract: async (args) => {
        simulated.push([...(args.args ?? [])]);
        return undefined;
      },
      writeContract: async () => HASH,
      waitForTransactionReceipt: async () => ({ status: 'success', logs: [] }),
    },
  };
  return { chain, simulated, viemSigned };
}

describe('the claim batch handed to the official scheme', () => {
  const terms: PaymentRequirements = {
    scheme: 'batch-settlement',
    network: 'eip155:8453',
    amount: '1000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payTo: `0x${'11'.repeat(20)}`,
    maxTimeoutSeconds: 60,
    extra: { receiverAuthorizer: authorizer.address, withdrawDelay: 86400 },
  };

  it("signs our own rows natively: the simulated claim carries the SDK's signature bytes, viem's signer is never asked", async () => {
    const { chain, simulated, viemSigned } = chainRecording();
    const facilitator = createChannelFacilitator(chain, 1_000, 8453);
    const config = configOf(authorizer.address);
    const rows = [claimEntry(config, '5000', `0x${'11'.repeat(65)}`, '4000')];
    expect(await facilitator.claim(rows, terms)).toEqual({ ok: true, transaction: HASH });
    const expected = await authorizer.signTypedData({
      domain: batchSettlementDomain(8453),
      types: claimBatchTypes,
      primaryType: 'ClaimBatch',
      message: { claims: [{ channelId: computeChannelId(config, 'eip155:8453'), maxClaimableAmount: 5000n, totalClaimed: 4000n }] },
    });
    expect(simulated).toHaveLength(1);
    expect(simulated[0]![1]).toBe(expected);
    expect(viemSigned).toEqual([]);
  });

  it('leaves a row of another receiver authorizer to the scheme, which refuses it as before, and signs nothing', async () => {
    const { chain, simulated, viemSigned } = chainRecording();
    const facilitator = createChannelFacilitator(chain, 1_000, 8453);
    const rows = [claimEntry(configOf(authorizer.address), '5000', '0x', '4000'), claimEntry(configOf(stranger.address), '9', '0x', '9')];
    expect(await facilitator.claim(rows, terms)).toMatchObject({ ok: false, reason: 'invalid_batch_settlement_evm_authorizer_address_mismatch' });
    expect(simulated).toEqual([]);
    expect(viemSigned).toEqual([]);
  });

  it("signs nothing for terms of another chain than the channels': the scheme's own signer answers for them", async () => {
    const { chain, simulated, viemSigned } = chainRecording();
    const facilitator = createChannelFacilitator(chain, 1_000, 84532);
    expect(await facilitator.claim([claimEntry(configOf(authorizer.address), '5000', '0x', '4000')], terms)).toMatchObject({ ok: true });
    expect(viemSigned).toHaveLength(1);
    expect(simulated[0]![1]).toBe(await authorizer.signTypedData(viemSigned[0] as never));
  });
});
