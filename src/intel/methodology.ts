/**
 * Every published methodology in one document, for `/trust/sir` and `/openapi.json`
 * (`info.x-methodology`). Each part is built from the constants its handlers use and states its
 * version (token answers also carry theirs as `methodologyVersion`), so a result can be
 * recomputed later against the rules in force when it was made.
 */
import { FORENSICS_METHODOLOGY } from './forensics/forensics-methodology.ts';
import { MARKET_METHODOLOGY } from './market/market-methodology.ts';
import { TIMING_METHODOLOGY } from './timing/timing-methodology.ts';
import { TOKEN_METHODOLOGY } from './token/token-methodology.ts';

export const METHODOLOGY = Object.freeze({
  token: TOKEN_METHODOLOGY,
  forensics: FORENSICS_METHODOLOGY,
  market: MARKET_METHODOLOGY,
  timing: TIMING_METHODOLOGY,
});

/** `methodologyVersion` of each part, e.g. for `/health`. */
export const METHODOLOGY_VERSIONS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(METHODOLOGY).map(([part, doc]) => [part, doc.methodologyVersion])),
);
