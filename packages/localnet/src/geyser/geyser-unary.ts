/**
 * The unary methods of the localnet Geyser server, each behind the x-token check: Ping, GetSlot,
 * GetBlockHeight, GetLatestBlockhash, IsBlockhashValid, GetVersion, SubscribeReplayInfo. Requests
 * arrive as bytes (see geyser-service.ts) and are decoded here.
 */
import { status as GrpcStatus, type Metadata, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { commitmentFromEnum, GeyserFilterError } from './geyser-filters.ts';
import { toInt64 } from './geyser-messages.ts';
import { decodeCommitmentRequest, decodeIsBlockhashValidRequest as decodeIsBlockhashValid, decodePingRequest as decodePing, encode } from './geyser-proto.ts';
import type { ReplayLog } from './geyser-replay-log.ts';
import type { ChainHeadReader, Commitment } from '../chain/types.ts';

/** Checks a call's metadata (x-token). */
export type Authorize = (metadata: Metadata) => boolean;
type UnaryHandler = (call: ServerUnaryCall<Uint8Array, Buffer>, callback: sendUnaryData<Buffer>) => void;

/** The unary methods, each behind the x-token check. */
export function unaryHandlers(head: ChainHeadReader, authorized: Authorize, replay: ReplayLog): UntypedServiceImplementation {
  const guarded =
    (answer: (request: Uint8Array) => Buffer): UnaryHandler =>
    (call, callback) => {
      if (!authorized(call.metadata)) {
        callback({ code: GrpcStatus.UNAUTHENTICATED, details: 'invalid or missing x-token' });
        return;
      }
      try {
        callback(null, answer(call.request));
      } catch (error) {
        callback(toStatus(error));
      }
    };
  return {
    Ping: guarded((request) => encode.pongResponse(decodePing(request))),
    GetSlot: guarded((request) => encode.getSlot({ slot: toInt64(head.slot(commitmentOf(request))) })),
    GetBlockHeight: guarded((request) => encode.getBlockHeight({ blockHeight: toInt64(head.blockHeight(commitmentOf(request))) })),
    GetLatestBlockhash: guarded((request) => {
      const latest = head.latestBlockhash(commitmentOf(request));
      return encode.getLatestBlockhash({
        slot: toInt64(latest.slot),
        blockhash: latest.blockhash,
        lastValidBlockHeight: toInt64(latest.lastValidBlockHeight),
      });
    }),
    IsBlockhashValid: guarded((request) => {
      const { blockhash, commitment } = decodeIsBlockhashValid(request);
      commitmentFromEnum(commitment);
      const answer = head.isBlockhashValid(blockhash);
      return encode.isBlockhashValid({ slot: toInt64(answer.slot), valid: answer.valid });
    }),
    GetVersion: guarded(() => encode.getVersion(versionJson(head))),
    SubscribeReplayInfo: guarded(() => {
      const first = replay.firstAvailable();
      return encode.replayInfo({ firstAvailable: first === null ? null : toInt64(first) });
    }),
  };
}

function commitmentOf(request: Uint8Array): Commitment {
  return commitmentFromEnum(decodeCommitmentRequest(request));
}

/** Yellowstone answers GetVersion with a JSON document describing the plugin and the validator. */
function versionJson(head: ChainHeadReader): string {
  const version = head.version();
  return JSON.stringify({
    version: { package: 'localnet-geyser', version: '1.0.0', proto: 'yellowstone-compatible', solana: version['solana-core'] },
    extra: { hostname: 'localnet', featureSet: version['feature-set'] },
  });
}

/** Maps a handler failure to a gRPC status. */
export function toStatus(error: unknown): { code: GrpcStatus; details: string } {
  if (error instanceof GeyserFilterError) {
    const code = error.kind === 'unimplemented' ? GrpcStatus.UNIMPLEMENTED : GrpcStatus.INVALID_ARGUMENT;
    return { code, details: error.message };
  }
  return { code: GrpcStatus.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}
