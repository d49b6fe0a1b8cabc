/**
 * The `geyser.Geyser` service definition for grpc-js, written out instead of loaded with
 * proto-loader so that Subscribe requests go through our tolerant decoder (see geyser-proto.ts)
 * and responses are bytes we framed ourselves. Unary requests stay raw bytes until the handler.
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { SubscribeRequestData } from './geyser-filters.ts';
import { decodeSubscribeRequest } from './geyser-proto.ts';

/** What a Subscribe handler receives per client message. */
export type DecodedSubscribeRequest = SubscribeRequestData;

const SERVICE_PATH = '/geyser.Geyser';

function passBytes(bytes: Buffer): Buffer {
  return bytes;
}

/** Server-side only: grpc-js never serialises a request on the server, so reaching this is a bug. */
function serverOnly(): Buffer {
  throw new Error('the localnet geyser service definition is server-side only');
}

function method<Request>(name: string, streaming: boolean, deserialize: (bytes: Buffer) => Request): MethodDefinition<Request, Buffer> {
  return {
    path: `${SERVICE_PATH}/${name}`,
    originalName: name,
    requestStream: streaming,
    responseStream: streaming,
    requestSerialize: serverOnly,
    requestDeserialize: deserialize,
    responseSerialize: passBytes,
    responseDeserialize: passBytes,
  };
}

const UNARY_METHODS = ['Ping', 'GetLatestBlockhash', 'GetBlockHeight', 'GetSlot', 'IsBlockhashValid', 'GetVersion', 'SubscribeReplayInfo'] as const;

/** Subscribe plus the unary methods; SubscribePreprocessed is not served (UNIMPLEMENTED). */
export const GEYSER_SERVICE: ServiceDefinition = {
  Subscribe: method('Subscribe', true, decodeSubscribeRequest),
  ...Object.fromEntries(UNARY_METHODS.map((name) => [name, method(name, false, passBytes)])),
};
