/**
 * What a byte view should carry to a worker. `postMessage` copies a view's whole underlying
 * buffer, not the view: a `Buffer.from` of a short string or of base64 is a view into Node's shared
 * 8 KiB slab, and a `subarray` of a decoded transaction is a view into all of it. A task's input
 * made of such views crossed as 8 KiB per view's buffer for a message of a few hundred bytes.
 */

/** `view` itself when it spans its whole buffer, else a copy of its bytes alone. */
export const ownBytes = (view: Uint8Array): Uint8Array => (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength ? view : new Uint8Array(view));
