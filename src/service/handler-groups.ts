/**
 * The paid handlers, in their groups by domain (timing, token, forensics, market), over the shared
 * RPC, pool and upstreams. Each group reads only the options in HandlerSettings.
 */
import type { Config } from '../config.ts';
import { createForensicsGroup } from '../intel/forensics/forensics-group.ts';
import type { HandlerDeps, HandlerGroup, HandlerSettings } from '../intel/handler-group.ts';
import { createMarketGroup } from '../intel/market/market-group.ts';
import { createTimingGroup, type TimingGroup } from '../intel/timing/timing-group.ts';
import { createTokenGroup } from '../intel/token/token-group.ts';

/** Every group, and the timing group again by name (/health shows its stream). */
export interface HandlerGroups {
  readonly groups: HandlerGroup[];
  readonly timing: TimingGroup;
}

/** The options the handler groups read, and no others. */
export function handlerSettings(config: Readonly<Pick<Config, keyof HandlerSettings>>): HandlerSettings {
  return {
    geyserStaleMs: config.geyserStaleMs,
    geyserBackoffMaxMs: config.geyserBackoffMaxMs,
    geyserStartWaitMs: config.geyserStartWaitMs,
    marketTimeoutMs: config.marketTimeoutMs,
    jupiterApiKey: config.jupiterApiKey,
    magicedenApiKey: config.magicedenApiKey,
  };
}

/** The paid handler groups; pretrade borrows token-intel and fee bands from its peers. */
export function createHandlerGroups(deps: HandlerDeps): HandlerGroups {
  const timing = createTimingGroup(deps);
  const token = createTokenGroup(deps);
  const forensics = createForensicsGroup(deps, { feeBands: (signal) => timing.feeBands(signal), tokenIntel: (mint, signal) => token.tokenIntel(mint, signal) });
  return { groups: [timing, token, forensics, createMarketGroup(deps)], timing };
}
