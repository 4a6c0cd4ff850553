/**
 * Whether `path` is `root` or under it as Express matches a mount path: whole segments, in any
 * case (Express routes are case-insensitive, so `/DOCS` reaches the same handler as `/docs`).
 * `root` is written in lower case.
 */
export function isUnderPath(path: string, root: string): boolean {
  const lower = path.toLowerCase();
  return lower === root || lower.startsWith(`${root}/`);
}
