/**
 * The forensics/execution group: wallet-scan, tx-inspect, simulate and the pretrade bundle (which
 * borrows token-intel from the token group and fee bands from the timing group).
 */
import type { FeeBands, HandlerDeps, HandlerGroup } from '../handler-group.ts';

/** Analyses of other groups that pretrade bundles. */
export interface ForensicsPeers {
  readonly feeBands: (signal: AbortSignal) => Promise<FeeBands>;
  readonly tokenIntel: (mint: string, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

/** Builds the forensics group. */
export function createForensicsGroup(_deps: HandlerDeps, _peers: ForensicsPeers): HandlerGroup {
  return { handlers: {} };
}
