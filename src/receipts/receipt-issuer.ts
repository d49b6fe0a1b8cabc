/**
 * Issues the receipt of a settled paid call and logs it (docs/contract.md#paid-call-flow step 7):
 * when the ledger assigns the entry's slot, the receipt is built for that slot (ledgerIndex, and
 * ledgerChainHead = the slot's prevHash) and its canonical hash becomes the entry's
 * receiptSha256; signing (in the pool) then runs while the entry is group-committed, and
 * the caller gets the header only when both are done, so a 200 never leaves before its entry is
 * durable. `issue` rejects if the append or the signing fails; the entry, once durable, stays (the
 * payment was settled). The payment processor then still sends the settled 200, without a
 * receipt, since the payer was charged and withholding the answer would lose it.
 */
import type { StagedWrite } from '../durable/staged-write.ts';
import { ServiceError } from '../errors.ts';
import { AttachedWritesError, type AppendResult, type Ledger } from '../ledger/ledger.ts';
import type { SignBytes } from '../tlog/checkpoint.ts';
import { sha256Hex } from '../ledger/merkle-hash.ts';
import { buildUnsignedReceipt, canonicalReceipt, signCanonical, type Receipt, type SignedReceipt } from './receipt.ts';

/** Configuration of the issuer. */
export interface ReceiptIssuerConfig {
  readonly ledger: Pick<Ledger, 'append'>;
  readonly service: string;
  readonly serviceVersion: string;
  /** Public base URL (known after listen); `signature.verify` is `{base_url}/trust/verify`. */
  readonly baseUrl: () => string;
  /** Base58 public key of the service identity. */
  readonly publicKey: string;
  /** ed25519 detached signature with the identity (e.g. the pool's `signEd25519` task). */
  readonly sign: SignBytes;
  readonly now?: () => Date;
}

/**
 * What a receipt is issued for: the resource a paid call bought (x402's PaidResource holds these
 * first three fields, and names them from here) with the network that settled it and the exact body
 * sent. A type of the receipts layer, below the payment code, so receipts and the ledger know no
 * payment types.
 */
export interface PaidAnswer {
  /** Path plus query as requested. */
  readonly originalUrl: string;
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  /** Settlement network label (CAIP-2). */
  readonly network: string;
  /** The exact body that will be sent. */
  readonly body: string | Uint8Array;
}

/** The signed receipt, its header value and the durable ledger position. */
export interface IssuedReceipt {
  readonly receipt: Receipt;
  readonly headerValue: string;
  readonly ledger: AppendResult;
  /**
   * Milliseconds from the start of `issue` until the receipt was signed and until the entry was
   * durable; the two run side by side (the paid answer's `Server-Timing` shows both).
   */
  readonly phases?: { readonly receiptMs: number; readonly ledgerMs: number };
  /** Whether the writes given with the entry (`IssueWith`) are durable; absent without them. */
  readonly kept?: boolean;
}

/**
 * Payment state made durable in the same commit as the receipt's entry (the charge, the replay
 * record, the answer kept for the identical retry): one durable commit per paid call.
 */
export interface IssueWith {
  /** The staged writes, built once the receipt's header value is known (the kept answer carries it). */
  readonly keep: (headerValue: string) => Promise<readonly StagedWrite[]>;
  /**
   * The call's charge (a voucher's), staged already: committed with the entry or neither (the
   * ledger's `first`). An append refused for it charged nothing, so no backlog entry is made.
   */
  readonly charge?: readonly StagedWrite[];
}

/** Receipt issuing over a ledger and a signer. */
export interface ReceiptIssuer {
  /** With `also`: `kept` in the result says whether its writes are durable with the entry. */
  issue(answer: PaidAnswer, also?: IssueWith): Promise<IssuedReceipt>;
}

/** The ledger refused the entry of a paid answer (the receipt was not issued). */
export class LedgerAppendError extends Error {
  constructor(readonly reason: unknown) {
    super(`ledger append failed: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'LedgerAppendError';
  }
}

/** Creates the issuer; `issue` resolves after the entry is on disk and the receipt is signed. */
export function createReceiptIssuer(config: Readonly<ReceiptIssuerConfig>): ReceiptIssuer {
  const now = config.now ?? (() => new Date());
  return {
    async issue(answer, also) {
      const started = performance.now();
      let receiptMs = 0;
      const signer = { publicKey: config.publicKey, sign: config.sign, verifyUrl: `${config.baseUrl()}/trust/verify` };
      const generatedAt = now();
      let signed: Promise<SignedReceipt> | null = null;
      // The writes ride only with a signed receipt: an answer kept without it could not be verified.
      let keptOk = false;
      const attach = also
        ? async () => {
            const receipt = await (signed as Promise<SignedReceipt> | null);
            if (!receipt) return [];
            const writes = await also.keep(receipt.headerValue);
            keptOk = true;
            return writes;
          }
        : undefined;
      const appended = config.ledger.append(
        {
          kind: 'payment',
          endpoint: answer.endpoint,
          priceUsdcUnits: answer.priceUsdcUnits,
          network: answer.network,
          // Runs when the slot is assigned: at once in the file ledger, inside the database's
          // transaction in the shared one, where a batch retried after a fault is sealed again (the
          // last slot is the one committed, so the last receipt built is the one signed and sent).
          receiptSha256: (slot) => {
            const unsigned = buildUnsignedReceipt({
              ...answer,
              service: config.service,
              serviceVersion: config.serviceVersion,
              ledgerChainHead: slot.prevHash,
              ledgerIndex: slot.index,
              generatedAt,
            });
            // Serialized once: its hash goes into the entry, its bytes are signed, the header is spliced from it.
            const canonical = canonicalReceipt(unsigned);
            const signing = signCanonical(unsigned, canonical, signer).then((r) => {
              receiptMs = performance.now() - started;
              return r;
            });
            // A receipt of a slot given up on is never awaited: its failure must not go unhandled.
            signing.catch(() => undefined);
            signed = signing;
            return sha256Hex(canonical);
          },
        },
        attach,
        also?.charge,
      );
      let kept: boolean | undefined;
      // Told apart from a signing failure: only an entry that is surely not appended may be appended again later.
      const ledger = await appended.catch((err: unknown) => {
        if (!(err instanceof AttachedWritesError)) throw new LedgerAppendError(err);
        kept = false;
        return err.appended;
      });
      if (also && kept === undefined) kept = keptOk;
      const ledgerMs = performance.now() - started;
      // No slot means append refused at once (e.g. a closed ledger): its rejection says why.
      if (signed === null) throw new ServiceError('internal_error', 'the ledger assigned no slot to the receipt');
      const { receipt, headerValue } = await (signed as Promise<SignedReceipt>);
      return { receipt, headerValue, ledger, phases: { receiptMs, ledgerMs }, ...(kept === undefined ? {} : { kept }) };
    },
  };
}
