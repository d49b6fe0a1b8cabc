/**
 * `npm run build:contracts`: brings contracts/build/ up to date with contracts/*.sol
 * (src/evm/compile-contracts.ts): LocalUsdc and the x402 batch-settlement contracts with
 * Multicall3. The artifacts are committed, so this compiles only when a source or the installed
 * solc changed since they were built; `-- --force` compiles regardless.
 */
import { compileLocalContracts, ensureLocalContractArtifacts } from '../src/evm/compile-contracts.ts';

const started = performance.now();
if (process.argv.includes('--force')) {
  const paths = await compileLocalContracts();
  console.log(`build:contracts wrote ${paths.join(', ')} in ${Math.round(performance.now() - started)} ms`);
} else {
  const compiled = await ensureLocalContractArtifacts((line) => console.log(`build:contracts: ${line}`));
  console.log(compiled ? `build:contracts compiled in ${Math.round(performance.now() - started)} ms` : 'build:contracts: the artifacts are up to date');
}
