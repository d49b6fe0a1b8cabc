/**
 * `/v1/simulate`: the caller's base64 wire transaction is decoded here first (an undecodable one
 * is a 400 before any RPC call), then dry-run by the node with sigVerify off and the recent
 * blockhash replaced, so an unsigned or stale transaction can still be judged. Nothing is ever
 * signed or sent.
 */
import type { RpcFailure } from '../../chain/solana/rpc-client.ts';
import type { SimulationOutcome } from '../../chain/solana/rpc-forensics-methods.ts';
import { decodeWireTransaction, isEmptySignature, type WireTransaction } from '../../chain/solana/svm-wire.ts';
import { ServiceError } from '../../errors.ts';
import { namePrograms } from './program-names.ts';

/** JSON-RPC codes by which a node refuses the transaction itself (not the upstream): invalid params, signature failure. */
const TRANSACTION_REFUSAL_CODES: ReadonlySet<number> = new Set([-32602, -32003]);

export const SIMULATE_NOTE =
  'Dry run against current chain state (confirmed commitment) with sigVerify=false and replaceRecentBlockhash=true: signatures are not checked and the blockhash is replaced, so an unsigned transaction can be judged. Never signed or sent; not a guarantee of the on-chain outcome, which depends on state when it lands.';

function decodeBase64(text: string): Uint8Array | null {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** Decodes the caller's transaction (once: the answer's counts come from this decoding) or throws 400 `invalid_transaction`. */
export function decodeSimulationInput(base64: string): WireTransaction {
  const bytes = decodeBase64(base64);
  if (bytes === null) throw new ServiceError('invalid_transaction', 'tx is not valid base64', { param: 'tx' });
  const decoded = decodeWireTransaction(bytes);
  if (!decoded.ok) throw new ServiceError('invalid_transaction', 'tx is not a decodable transaction', { param: 'tx' });
  return decoded.tx;
}

/** The node's refusal of the transaction is a 400; any other JSON-RPC error is the upstream's fault. */
export function simulationFailure(failure: RpcFailure): ServiceError {
  if (TRANSACTION_REFUSAL_CODES.has(failure.code)) {
    return new ServiceError('invalid_transaction', 'the node could not decode or accept this transaction', { param: 'tx', rpcCode: failure.code });
  }
  return new ServiceError('upstream_unavailable', 'Solana RPC simulateTransaction answered an error', { upstream: 'solana-rpc', rpcCode: failure.code });
}

/**
 * A node that finds the transaction malformed answers either a JSON-RPC error (see
 * `simulationFailure`) or the transaction error `SanitizeFailure` (account or program indices out
 * of range, ...): both mean the caller's transaction cannot be executed as encoded, a 400.
 */
export function refusedAsMalformed(outcome: SimulationOutcome): ServiceError | null {
  if (outcome.err !== 'SanitizeFailure') return null;
  return new ServiceError(
    'invalid_transaction',
    'the node could not sanitize this transaction (an account or program index is out of range, or the message is inconsistent)',
    { param: 'tx' },
  );
}

/** The simulate answer. */
export function simulationAnswer(tx: WireTransaction, outcome: SimulationOutcome) {
  const outerPrograms = tx.instructions.map((ix) => tx.staticAccounts[ix.programIndex] ?? 'unknown');
  const writableSigned = tx.numRequiredSignatures - tx.numReadonlySigned;
  const writableUnsigned = tx.staticAccounts.length - tx.numRequiredSignatures - tx.numReadonlyUnsigned;
  return {
    willSucceed: outcome.err === null,
    unitsConsumed: outcome.unitsConsumed ?? ('unknown' as const),
    err: outcome.err,
    accountsTouched: tx.staticAccounts.length + tx.lookupAccounts,
    accounts: {
      static: tx.staticAccounts.length,
      fromLookupTables: tx.lookupAccounts,
      writableStatic: writableSigned + writableUnsigned,
      signers: tx.numRequiredSignatures,
      feePayer: tx.staticAccounts[0] ?? 'unknown',
    },
    version: tx.version,
    signaturesPresent: tx.signatures.filter((s) => !isEmptySignature(s)).length,
    programsInvoked: namePrograms([...outerPrograms, ...outcome.innerProgramIds]).map(({ name, programId }) => ({ name, programId })),
    logs: [...outcome.logs],
    note: SIMULATE_NOTE,
  };
}
