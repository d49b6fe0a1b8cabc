/**
 * `npm run build:contracts`: compiles contracts/LocalUsdc.sol now (src/evm/compile-local-usdc.ts).
 * The embedded localnet also compiles it at start when the artifact is missing or stale.
 */
import { compileLocalUsdc } from '../src/evm/compile-local-usdc.ts';

const started = performance.now();
const path = await compileLocalUsdc();
console.log(`build:contracts wrote ${path} in ${Math.round(performance.now() - started)} ms`);
