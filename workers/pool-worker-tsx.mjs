// Worker entry used when the service runs from TypeScript sources (tsx, vitest). Node 20 worker
// threads ignore `--import tsx` in execArgv, so tsx's loader is registered here before the
// TypeScript entry is imported. Keep the re-exported names equal to the exports of pool-worker.ts.
//
// A test run names in POOL_WORKER_BUNDLE the worker bundle its global setup built from these same
// sources (test/helpers/build-setup.ts): a thread then starts from it for about 0.06 s of CPU
// against 0.35 s compiling the TypeScript here, and every in-process test service starts one or two.
const bundle = process.env.POOL_WORKER_BUNDLE;
if (!bundle) (await import('tsx/esm/api')).register();
const tasks = bundle ? await import(bundle) : await import('./pool-worker.ts');
export const verifyEd25519Batch = tasks.verifyEd25519Batch;
export const verifyEd25519Few = tasks.verifyEd25519Few;
export const signEd25519 = tasks.signEd25519;
export const verifyEvmExact = tasks.verifyEvmExact;
export const recoverVoucher = tasks.recoverVoucher;
export const timingPercentiles = tasks.timingPercentiles;
export const bucketHolders = tasks.bucketHolders;
export const slippageCurve = tasks.slippageCurve;
export const runBatch = tasks.runBatch;
