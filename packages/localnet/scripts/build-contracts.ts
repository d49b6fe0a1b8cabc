/**
 * `npm run build:contracts`: compiles contracts/*.sol now (src/evm/compile-contracts.ts): LocalUsdc
 * and the x402 batch-settlement contracts with Multicall3. The embedded localnet also compiles
 * them at start when an artifact is missing or stale.
 */
import { compileLocalContracts } from '../src/evm/compile-contracts.ts';

const started = performance.now();
const paths = await compileLocalContracts();
console.log(`build:contracts wrote ${paths.join(', ')} in ${Math.round(performance.now() - started)} ms`);
