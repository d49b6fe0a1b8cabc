/**
 * The paid handlers, in their groups by domain (timing, token, forensics, market) and in modules
 * of their own (src/intel/paid-handler-modules.ts, generated), over the shared RPC, pool and
 * upstreams, merged into the one map that serves every catalog path. Each group reads only the
 * options in HandlerSettings.
 */
import { CATALOG, type PaidPath } from '../catalog/endpoints.ts';
import type { Config } from '../config.ts';
import { createForensicsGroup } from '../intel/forensics/forensics-group.ts';
import type { HandlerDeps, HandlerGroup, HandlerMap, HandlerSettings, PaidHandlerModule, PaidHandlers } from '../intel/handler-group.ts';
import { createMarketGroup } from '../intel/market/market-group.ts';
import { PAID_HANDLER_MODULES } from '../intel/paid-handler-modules.ts';
import { createTimingGroup } from '../intel/timing/timing-group.ts';
import { createTokenGroup } from '../intel/token/token-group.ts';

/** Every group and every path's handler. */
export interface HandlerGroups {
  readonly groups: readonly HandlerGroup<never>[];
  readonly handlers: PaidHandlers;
}

/** The options the handler groups read, and no others. */
export function handlerSettings(config: Readonly<Pick<Config, keyof HandlerSettings>>): HandlerSettings {
  return {
    marketTimeoutMs: config.marketTimeoutMs,
    jupiterApiKey: config.jupiterApiKey,
    magicedenApiKey: config.magicedenApiKey,
  };
}

/** A handler module of any path (each was checked against its own path's schema where it was declared). */
type AnyHandlerModule = Pick<PaidHandlerModule<PaidPath>, 'path'> & { readonly create: (deps: HandlerDeps) => unknown };
type ModulePath<M> = M extends { readonly path: infer P extends PaidPath } ? P : never;

/** The handler modules built over the shared dependencies, by path. */
function moduleHandlers<const M extends readonly AnyHandlerModule[]>(modules: M, deps: HandlerDeps): HandlerMap<ModulePath<M[number]>> {
  return Object.fromEntries(modules.map((m) => [m.path, m.create(deps)])) as unknown as HandlerMap<ModulePath<M[number]>>;
}

/**
 * Refuses a handler map that does not serve exactly the catalog: a path with no handler, served
 * twice, or served and not sold. The type checker already refuses the first in our own code; this
 * holds code run without it (`npm run dev`, the build) to the same rule before anything listens.
 */
export function assertServesCatalog(served: readonly (readonly string[])[], catalogPaths: readonly string[] = CATALOG.map((e) => e.path)): void {
  const all = served.flat();
  const problems = [
    ...catalogPaths.filter((p) => !all.includes(p)).map((p) => `${p} has no handler`),
    ...[...new Set(all.filter((p, i) => all.indexOf(p) !== i))].map((p) => `${p} has more than one handler`),
    ...all.filter((p) => !catalogPaths.includes(p)).map((p) => `${p} has a handler but no catalog entry`),
  ];
  if (problems.length > 0) {
    throw new Error(`the paid handlers do not match the catalog: ${problems.join('; ')} (docs/development.md, "Adding a paid endpoint")`);
  }
}

/** The paid handler groups and modules; pretrade borrows token-intel and fee bands from its peers. */
export function createHandlerGroups(deps: HandlerDeps): HandlerGroups {
  const timing = createTimingGroup(deps);
  const token = createTokenGroup(deps);
  const forensics = createForensicsGroup(deps, { feeBands: (signal) => timing.feeBands(signal), tokenIntel: (mint, signal) => token.tokenIntel(mint, signal) });
  const market = createMarketGroup(deps);
  const modules = moduleHandlers(PAID_HANDLER_MODULES, deps);
  const parts = [timing.handlers, token.handlers, forensics.handlers, market.handlers, modules];
  assertServesCatalog(parts.map((h) => Object.keys(h)));
  const handlers: PaidHandlers = { ...timing.handlers, ...token.handlers, ...forensics.handlers, ...market.handlers, ...modules };
  return { groups: [timing, token, forensics, market], handlers };
}
