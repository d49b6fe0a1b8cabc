/**
 * RPC calls of the timing endpoints: the epoch schedule (read once; positions are then derived
 * from streamed slots) and the fallback sources used while the Geyser stream is down.
 */
import type { Address } from '@solana/kit';
import type { RpcTransport } from './rpc-client.ts';

export interface EpochScheduleData {
  readonly slotsPerEpoch: number;
  readonly warmup: boolean;
  readonly firstNormalEpoch: number;
  readonly firstNormalSlot: number;
}

export interface PrioritizationFee {
  readonly slot: number;
  /** Agave: the slot's minimum compute-unit price (raised to the highest per-account minimum of the given accounts). */
  readonly prioritizationFee: number;
}

export interface TimingRpcMethods {
  getEpochSchedule(signal?: AbortSignal): Promise<EpochScheduleData>;
  getRecentPrioritizationFees(accounts: readonly string[], signal?: AbortSignal): Promise<PrioritizationFee[]>;
}

/** The timing group's RPC methods over the shared transport. */
export function createTimingRpcMethods(transport: RpcTransport): TimingRpcMethods {
  return {
    async getEpochSchedule(signal) {
      const s = await transport.call('getEpochSchedule', signal, (abortSignal) => transport.rpc.getEpochSchedule().send({ abortSignal }));
      return {
        slotsPerEpoch: Number(s.slotsPerEpoch),
        warmup: s.warmup,
        firstNormalEpoch: Number(s.firstNormalEpoch),
        firstNormalSlot: Number(s.firstNormalSlot),
      };
    },
    async getRecentPrioritizationFees(accounts, signal) {
      const fees = await transport.call('getRecentPrioritizationFees', signal, (abortSignal) =>
        transport.rpc.getRecentPrioritizationFees(accounts as Address[]).send({ abortSignal }),
      );
      return fees.map((f) => ({ slot: Number(f.slot), prioritizationFee: Number(f.prioritizationFee) }));
    },
  };
}
