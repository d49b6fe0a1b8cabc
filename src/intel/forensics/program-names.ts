/**
 * Names of well-known Solana program ids (mainnet addresses, published by their maintainers) and
 * the eight Jito tip accounts. A program id not in the table is reported with the name `unknown`:
 * the service never guesses what an unlisted program is.
 */
import { JITO_TIP_ACCOUNTS as JITO_TIP_ACCOUNT_LIST } from '../../chain/geyser/geyser-tx-parse.ts';

/** Program id -> human name. Documented in docs/endpoints.md; extend only with published addresses. */
export const WELL_KNOWN_PROGRAMS: Readonly<Record<string, string>> = Object.freeze({
  '11111111111111111111111111111111': 'System Program',
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: 'SPL Token',
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: 'SPL Token-2022',
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: 'Associated Token Account',
  ComputeBudget111111111111111111111111111111: 'Compute Budget',
  MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: 'SPL Memo',
  Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo: 'SPL Memo (v1)',
  Vote111111111111111111111111111111111111111: 'Vote Program',
  Stake11111111111111111111111111111111111111: 'Stake Program',
  Config1111111111111111111111111111111111111: 'Config Program',
  AddressLookupTab1e1111111111111111111111111: 'Address Lookup Table',
  BPFLoaderUpgradeab1e11111111111111111111111: 'BPF Upgradeable Loader',
  BPFLoader2111111111111111111111111111111111: 'BPF Loader 2',
  Ed25519SigVerify111111111111111111111111111: 'Ed25519 Signature Verify',
  KeccakSecp256k11111111111111111111111111111: 'Secp256k1 Signature Verify',
  SPoo1Ku8WFXoNDMHPsrGSTSG1Y47rzgn41SLUNakuHy: 'SPL Stake Pool',
  metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s: 'Metaplex Token Metadata',
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: 'Jupiter Aggregator v6',
  JUP4Fb2cqiRUcaTHdrPC8h2gNsA2ETXiPDD33WcGuJB: 'Jupiter Aggregator v4',
  '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8': 'Raydium AMM v4',
  CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK: 'Raydium CLMM',
  CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C: 'Raydium CPMM',
  whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: 'Orca Whirlpool',
  '9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP': 'Orca Token Swap v2',
  LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo: 'Meteora DLMM',
  Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB: 'Meteora Dynamic AMM',
  PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY: 'Phoenix',
  opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb: 'OpenBook v2',
  '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin': 'Serum DEX v3',
  '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P': 'Pump.fun',
  T1pyyaTNZsKv2WcRAB8oVnk93mLJw2XzjtVYqCsaHqt: 'Jito Tip Payment',
  '4R3gSG8BpU4t19KYj8CfnbtRpnT8gtk4dvTHxVRwc2r7': 'Jito Tip Distribution',
  MarBmsSgKXdrN1egZf5sqe1TMai9K1rChYNDJgjq7aD: 'Marinade Finance',
  KLend2g3cP87fffoy8q1mQqGKjrxjFVFEZ4iT2y2m5Q: 'Kamino Lending',
  dRiftyHA39MWEi3m9aunc5MzRF1JYuBsbn6VPcn33UH: 'Drift v2',
  worm2ZoG2kUd4vFXhvjh93UUH596ayRfgQ2MgjNMTth: 'Wormhole Core Bridge',
});

/** The eight Jito tip accounts as a set (a System transfer to one of them is a bundle tip); the list is the chain layer's. */
export const JITO_TIP_ACCOUNTS: ReadonlySet<string> = new Set(JITO_TIP_ACCOUNT_LIST);

/** A program as reported: its id and its name (`unknown` when not in the table). */
export interface NamedProgram {
  readonly name: string;
  readonly programId: string;
  readonly known: boolean;
}

/** Names one program id. */
export function nameProgram(programId: string): NamedProgram {
  const name = Object.hasOwn(WELL_KNOWN_PROGRAMS, programId) ? WELL_KNOWN_PROGRAMS[programId] : undefined;
  return { name: name ?? 'unknown', programId, known: name !== undefined };
}

/** Distinct program ids in first-seen order, each named. */
export function namePrograms(programIds: Iterable<string>): NamedProgram[] {
  const seen = new Set<string>();
  const out: NamedProgram[] = [];
  for (const id of programIds) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(nameProgram(id));
  }
  return out;
}
