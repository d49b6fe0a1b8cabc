/**
 * What a start checks before it builds, starts or writes anything: the public and admin ports can
 * be bound, and no live process holds the data directory. main.ts asks it first thing, and
 * `npm start` (scripts/start.mjs) asks it before a build, so a second copy on a busy port or
 * directory says so at once and leaves no trace. The listen and the lock still decide: another
 * process may take either in between, and gets the same sentence.
 */
import type { Config } from '../config.ts';
import { InUseError } from '../errors.ts';
import { ADMIN_HOST } from '../operations/admin-server.ts';
import { portUnavailable } from '../http/server/listen-failure.ts';
import { assertDataDirFree } from './data-dir-lock.ts';

/** Throws InUseError naming the first port or the data directory that is taken. */
export async function checkStart(config: Pick<Config, 'host' | 'port' | 'adminPort' | 'dataDir'>): Promise<void> {
  for (const [host, port] of [
    [config.host, config.port],
    [ADMIN_HOST, config.adminPort],
  ] as const) {
    const why = await portUnavailable(host, port);
    if (why !== null) throw new InUseError(why);
  }
  assertDataDirFree(config.dataDir);
}
