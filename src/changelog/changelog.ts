import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * CHANGELOG.md at the root of the app (the repository, or /app in the image): two folders up
 * from this module both as src/changelog/*.ts and as dist/changelog/*.js.
 */
export const CHANGELOG_PATH = join(import.meta.dirname, '..', '..', 'CHANGELOG.md');

/** The path the service serves its changelog at, and CHANGELOG_URL's default. */
export const CHANGELOG_PATHNAME = '/changelog';

/**
 * The changelog as a minimal HTML page: the Markdown as written, escaped, in a `<pre>`. The
 * deprecation Link announces `type="text/html"` (docs/api.md), and Keep a Changelog's
 * Markdown reads well as plain text, so no Markdown renderer (nor its dependencies) is needed.
 */
export function changelogPage(markdown: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>Pet store API: changelog</title></head>',
    `<body><pre>${escapeHtml(markdown)}</pre></body>`,
    '</html>',
    '',
  ].join('\n');
}

/** Reads CHANGELOG.md; a missing file stops the start-up, as the default Link points here. */
export function readChangelog(path = CHANGELOG_PATH): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`The changelog ${path} cannot be read (it must ship with the app)`, {
      cause: error,
    });
  }
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}
