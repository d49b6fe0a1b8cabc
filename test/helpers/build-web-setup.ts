/**
 * Vitest global setup: builds the storefront's assets before any test file runs, so a test run
 * (even `npx vitest run <file>` without `npm test`'s pretest) serves the page of the sources as
 * they are now. The service refuses to start without them.
 */
import { buildWeb } from '../../scripts/build-web.ts';

export default async function setup(): Promise<void> {
  await buildWeb();
}
