import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * The Node options production runs the service with: the `NODE_OPTIONS` of the Dockerfile's
 * runtime stage, read from the Dockerfile itself, so a bench measures what ships. Both servers
 * of `npm run bench` get them (a comparison on the same runtime settings), and so does the
 * service of the v2 harnesses.
 */
export function productionNodeOptions(): string {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.search(/^FROM .* AS runtime$/m));
  const options = /\bNODE_OPTIONS="([^"]*)"/.exec(runtime)?.[1];
  if (options === undefined) {
    throw new Error(
      'the Dockerfile\'s runtime stage sets no NODE_OPTIONS="…" for the bench to copy',
    );
  }
  return options;
}
