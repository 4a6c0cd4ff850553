/** The service's pieces that bench:pieces takes away one at a time (pieces-server.ts). */
export const PIECES = [
  'security headers',
  'request id',
  'request log',
  'metrics',
  'rate limiter',
  'API key guard',
  'interceptors and pipes',
  'answer deadline',
  'connection tracking',
] as const;
export type Piece = (typeof PIECES)[number];
