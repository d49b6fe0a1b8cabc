/**
 * The protobuf codec of the localnet Geyser server, the only module that loads the compiled
 * Yellowstone protos (`laserstream-core-proto-js`, a protobufjs static module of `geyser.proto`
 * and `solana-storage.proto`).
 *
 * Requests are decoded here rather than by `@grpc/proto-loader` because the official client's Rust
 * core encodes an empty filter message (`blocksMeta: { name: {} }`) as a map entry without a value,
 * which proto-loader's object conversion rejects; we read such an entry as an empty filter.
 *
 * Updates are framed from pre-encoded payloads: a transaction is encoded once and the per-stream
 * envelope (`filters`, `created_at`) is concatenated around it, which protobuf's merge rule allows.
 */
import proto from 'laserstream-core-proto-js';
import type { SubscribeRequestData, TransactionFilterRequest } from './geyser-filters.ts';

const { geyser, google } = proto;

/** `SubscribeUpdate.update_oneof` field numbers. */
export const UPDATE_FIELD = {
  slot: 3,
  transaction: 4,
  ping: 6,
  blockMeta: 7,
  pong: 9,
  transactionStatus: 10,
} as const;
export type UpdateField = (typeof UPDATE_FIELD)[keyof typeof UPDATE_FIELD];

const WIRE_TYPE_LENGTH_DELIMITED = 2;
const MS_PER_SECOND = 1000;
const NS_PER_MS = 1_000_000;
const EMPTY = new Uint8Array(0);

/** Decodes a `SubscribeRequest`, tolerating value-less map entries (see the module comment). */
export function decodeSubscribeRequest(bytes: Uint8Array): SubscribeRequestData {
  const message = geyser.SubscribeRequest.decode(bytes);
  const unsupported = (['accounts', 'blocks', 'entry'] as const).filter((key) => Object.keys(message[key] ?? {}).length > 0);
  return {
    slots: mapValues(message.slots, (slot) => ({ filterByCommitment: slot?.filterByCommitment ?? null })),
    transactions: mapValues(message.transactions, toTransactionFilter),
    transactionsStatus: mapValues(message.transactionsStatus, toTransactionFilter),
    blocksMeta: Object.keys(message.blocksMeta ?? {}),
    unsupported,
    commitment: message.commitment ?? null,
    ping: message.ping ? (message.ping.id ?? 0) : null,
    fromSlot: message.fromSlot === null || message.fromSlot === undefined ? null : BigInt(message.fromSlot.toString()),
  };
}

function toTransactionFilter(filter: proto.geyser.ISubscribeRequestFilterTransactions | null | undefined): TransactionFilterRequest {
  return {
    vote: filter?.vote ?? null,
    failed: filter?.failed ?? null,
    signature: filter?.signature ?? null,
    accountInclude: filter?.accountInclude ?? [],
    accountExclude: filter?.accountExclude ?? [],
    accountRequired: filter?.accountRequired ?? [],
  };
}

function mapValues<T, R>(record: { readonly [name: string]: T } | null | undefined, convert: (value: T | null | undefined) => R): Record<string, R> {
  const out: Record<string, R> = {};
  for (const [name, value] of Object.entries(record ?? {})) out[name] = convert(value);
  return out;
}

/** The optional `commitment` of GetSlot / GetBlockHeight / GetLatestBlockhash requests. */
export function decodeCommitmentRequest(bytes: Uint8Array): number | null {
  return geyser.GetSlotRequest.decode(bytes).commitment ?? null;
}

/** `IsBlockhashValidRequest`. */
export function decodeIsBlockhashValidRequest(bytes: Uint8Array): { blockhash: string; commitment: number | null } {
  const message = geyser.IsBlockhashValidRequest.decode(bytes);
  return { blockhash: message.blockhash, commitment: message.commitment ?? null };
}

/** `PingRequest.count`. */
export function decodePingRequest(bytes: Uint8Array): number {
  return geyser.PingRequest.decode(bytes).count;
}

/** Encoders of update payloads and unary responses, each the generated protobufjs encoder. */
export const encode = {
  slot: (value: proto.geyser.ISubscribeUpdateSlot) => geyser.SubscribeUpdateSlot.encode(value).finish(),
  transaction: (value: proto.geyser.ISubscribeUpdateTransaction) => geyser.SubscribeUpdateTransaction.encode(value).finish(),
  transactionStatus: (value: proto.geyser.ISubscribeUpdateTransactionStatus) => geyser.SubscribeUpdateTransactionStatus.encode(value).finish(),
  blockMeta: (value: proto.geyser.ISubscribeUpdateBlockMeta) => geyser.SubscribeUpdateBlockMeta.encode(value).finish(),
  pong: (id: number) => geyser.SubscribeUpdatePong.encode({ id }).finish(),
  ping: () => EMPTY,
  pongResponse: (count: number) => toBuffer(geyser.PongResponse.encode({ count }).finish()),
  getSlot: (value: proto.geyser.IGetSlotResponse) => toBuffer(geyser.GetSlotResponse.encode(value).finish()),
  getBlockHeight: (value: proto.geyser.IGetBlockHeightResponse) => toBuffer(geyser.GetBlockHeightResponse.encode(value).finish()),
  getLatestBlockhash: (value: proto.geyser.IGetLatestBlockhashResponse) => toBuffer(geyser.GetLatestBlockhashResponse.encode(value).finish()),
  isBlockhashValid: (value: proto.geyser.IIsBlockhashValidResponse) => toBuffer(geyser.IsBlockhashValidResponse.encode(value).finish()),
  getVersion: (version: string) => toBuffer(geyser.GetVersionResponse.encode({ version }).finish()),
  replayInfo: (value: proto.geyser.ISubscribeReplayInfoResponse) => toBuffer(geyser.SubscribeReplayInfoResponse.encode(value).finish()),
} as const;

/**
 * One `SubscribeUpdate` on the wire: the envelope (`filters`, `created_at`) encoded by protobufjs,
 * followed by the oneof field written by hand around the pre-encoded payload.
 */
export function frameUpdate(filters: readonly string[], field: UpdateField, payload: Uint8Array, createdAtMs: number): Buffer {
  const createdAt = google.protobuf.Timestamp.create({
    seconds: Math.floor(createdAtMs / MS_PER_SECOND),
    nanos: (createdAtMs % MS_PER_SECOND) * NS_PER_MS,
  });
  const envelope = geyser.SubscribeUpdate.encode({ filters: [...filters], createdAt }).finish();
  const tag = varint((field << 3) | WIRE_TYPE_LENGTH_DELIMITED);
  const length = varint(payload.length);
  return Buffer.concat([envelope, tag, length, payload], envelope.length + tag.length + length.length + payload.length);
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
