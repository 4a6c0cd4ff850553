/**
 * A WAL position (PostgreSQL's pg_lsn, written `16/B374D848`) as a number that compares, and as
 * fixed-width text that compares the same way as a string (how Redis keeps it: Lua's numbers
 * are doubles, too short for 64 bits).
 */
export type WalPosition = bigint;

export function parseWalPosition(text: string): WalPosition {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** 16 hex digits: text order is number order. */
export function walPositionText(position: WalPosition): string {
  return position.toString(16).toUpperCase().padStart(16, '0');
}

export function walPositionFromText(text: string): WalPosition {
  return BigInt(`0x${text}`);
}
