/**
 * One network's `exact` scheme as this service runs it: the x402 server role (scheme-server.ts:
 * the replay key and payer read from a payment) and the facilitator role (scheme-facilitator.ts:
 * verify, settle, the settlement's status) on one object, because the service is its own
 * facilitator and both roles read the same decoded payload (`decodeOnce`). A consumer that needs
 * one role takes that role's type; the exact scheme's state machine (exact/exact-machine.ts) takes both.
 */
import type { ExactSchemeFacilitator } from './scheme-facilitator.ts';
import type { ExactSchemeServer } from './scheme-server.ts';

export type ExactScheme = ExactSchemeServer & ExactSchemeFacilitator;
