/**
 * `unknown`: what an answer says for a figure it could not determine, never a guess. Typed as the
 * literal, so an answer built with it keeps the type its response schema names.
 */

export type Unknown = 'unknown';

/** The marker itself. */
export const UNKNOWN: Unknown = 'unknown';

/** `value`, or `unknown` when the source has none. */
export const orUnknown = <T>(value: T | null | undefined): T | Unknown => value ?? UNKNOWN;
