// Part of `npm run build`: copies Redoc's standalone bundle (a devDependency, pinned in
// package-lock.json) into dist/reference/, which the service serves at /reference
// (src/common/openapi/reference.ts). The image keeps dist/ but no devDependencies.
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const bundles = dirname(
  createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
);
for (const name of ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt']) {
  cpSync(join(bundles, name), join('dist', 'reference', name));
}
