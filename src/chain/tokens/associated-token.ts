/**
 * Associated token account addresses (the PDA of owner, token program and mint under the ATA
 * program), derived with @solana-program/token. Derivation hashes until it finds an off-curve
 * point, so callers derive once per (owner, mint) and keep the result.
 */
import { address, type Address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';

/** payTo's associated token account for `mint` under `tokenProgram`. */
export async function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: tokenProgram as Address });
  return ata;
}
