/**
 * Waits until `condition` holds (polled every 25 ms), or fails after `timeoutMs`, naming `what`
 * it waited for.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}
