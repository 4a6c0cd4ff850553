import { Ascii } from '../ascii.js';
/**
 * Whether `path` is `root` or under it as Express matches a mount path: whole segments, in any
 * case (Express routes are case-insensitive, so `/DOCS` reaches the same handler as `/docs`).
 * `root` is written in lower case. Every request asks this, so only the root's length of the
 * path is lowercased, not the whole path.
 */
export function isUnderPath(path: string, root: string): boolean {
  if (path.length < root.length) return false;
  if (path.length > root.length && path.charCodeAt(root.length) !== Ascii.SLASH) return false;
  return path.slice(0, root.length).toLowerCase() === root;
}
