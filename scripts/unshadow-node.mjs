#!/usr/bin/env node
/**
 * Keeps npm scripts on the Node the project runs on.
 *
 * The MCP conformance suite needs Node 22 (it uses `fs.globSync`), which the `node` npm package
 * (a dev dependency) provides at node_modules/node/bin/node; the conformance test runs it by that
 * path. But npm links that package's bin as node_modules/.bin/node, and npm scripts put
 * node_modules/.bin first on PATH, so every `npm test` or `npm start` would run on Node 22,
 * where uWebSockets.js has no binary. This removes that one link; the binary itself stays.
 *
 * Runs as postinstall, pretest and prestart (a partial `npm install <pkg>` relinks it).
 */
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const link = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
let target = null;
try {
  if (lstatSync(link).isSymbolicLink()) target = readlinkSync(link);
} catch {
  // No link: nothing shadows the system node.
}
if (target?.includes('node/bin/node')) {
  rmSync(link);
  console.log('unshadow-node: removed node_modules/.bin/node (the Node 22 of the conformance test stays at node_modules/node/bin/node)');
}
