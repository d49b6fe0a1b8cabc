#!/usr/bin/env node
/**
 * The x402-intel command: registers tsx (a dependency) so Node runs the TypeScript CLI as it is,
 * from wherever the package sits and whatever the working directory. tsx reads no tsconfig of the
 * caller's directory (tsconfig: false): the CLI needs none, and a stranger's must not change it.
 */
import { register } from 'tsx/esm/api';

register({ tsconfig: false });
const { main } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
await main();
