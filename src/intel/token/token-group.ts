/**
 * The token group: mint and holder analysis behind smri, decision, token-risk, token-intel,
 * batch/token-risk and token-holders. It also lends pretrade the token-intel analysis.
 */
import { ServiceError } from '../../errors.ts';
import type { HandlerDeps, HandlerGroup } from '../handler-group.ts';

/** The token handlers plus the token-intel analysis pretrade bundles. */
export interface TokenGroup extends HandlerGroup {
  tokenIntel(mint: string, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** Builds the token group over the RPC client and the pool. */
export function createTokenGroup(_deps: HandlerDeps): TokenGroup {
  return {
    handlers: {},
    async tokenIntel() {
      throw new ServiceError('upstream_unavailable', 'token analysis is not available in this deployment');
    },
  };
}
