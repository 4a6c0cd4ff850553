import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';

/**
 * What read routing knows of the request being served (readYourWritesMiddleware): its caller,
 * whose key a read must honour, and, for a request that may write, whether one of its
 * statements may have committed on the primary (then its key's last write is recorded).
 *
 * It lets go of the request once answered: work started while serving (the socket's keep-alive
 * timer, a log line's file write, a pool connection opened then, a timer) keeps the request's
 * async context for as long as it lasts, and through it whatever the context holds. Holding
 * the request there would keep each answered request's whole graph alive past the next young
 * GC, into the old generation (docs/performance.md, One read replica: "Requests kept alive").
 */
export class ServedRequest {
  /** A statement that may commit was sent on the primary while it was served. */
  committed = false;
  /** Until answered. */
  private request: AuthenticatedRequest | undefined;
  /** The caller's key, once answered (a streamed answer goes on reading after its head). */
  private answeredKeyId: number | undefined;

  constructor(
    request: AuthenticatedRequest,
    /** It may write (any method but GET, HEAD, OPTIONS): its commits are noticed. */
    readonly writes: boolean,
  ) {
    this.request = request;
  }

  /** The caller's key id, once the guard has found the key. */
  get keyId(): number | undefined {
    return this.request ? this.request.apiKey?.keyId : this.answeredKeyId;
  }

  /**
   * Answered: work it started that goes on (a timer made while it was served keeps its
   * context) is not its own any more.
   */
  get closed(): boolean {
    return this.request === undefined;
  }

  /** Its answer's head is being written: the caller is known for good, the request let go. */
  close(): void {
    this.answeredKeyId = this.keyId;
    this.request = undefined;
  }
}

const servedRequests = new AsyncLocalStorage<ServedRequest>();

/** Runs `serve` as `served`: its reads and its primary's statements know the request. */
export function serving<T>(served: ServedRequest, serve: () => T): T {
  return servedRequests.run(served, serve);
}

/** The request being served, if any. */
export function servedRequest(): ServedRequest | undefined {
  return servedRequests.getStore();
}

/**
 * A statement sent outside a transaction block commits on its own, unless it only reads or
 * opens a block; in a block ('T', or 'E' once failed), COMMIT (or END) commits. A client not
 * yet told its status (null: its first statement, sent as it connects) is in none. A SELECT
 * writes nothing here (the schema has no function that writes; a data-modifying WITH does not
 * start with SELECT), so the key guard's look-ups and a handler's reads mark nothing.
 */
const COMMITS_NOTHING_OUTSIDE_A_BLOCK = /^\s*(begin|start\s+transaction|select|show)\b/i;
const ENDS_BLOCK = /^\s*(commit|end)\b/i;

function mayCommit(client: pg.Client, sql: string): boolean {
  const status = client.getTransactionStatus() as string | null;
  return status === 'T' || status === 'E'
    ? ENDS_BLOCK.test(sql)
    : !COMMITS_NOTHING_OUTSIDE_A_BLOCK.test(sql);
}

/** The text of what pg's query() was given (text, config or a submittable), if it has one. */
function statementText(first: unknown): string | undefined {
  if (typeof first === 'string') return first;
  const text = (first as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : undefined;
}

/**
 * `Base` (pg's Client or a subclass), except that a statement that may commit, sent while a
 * request that may write is served, marks that request as committed. It sends nothing more:
 * the commit's WAL position is learned afterwards, for many writes at once (ReadRouter).
 */
export function clientNoticingCommits(Base: typeof pg.Client): typeof pg.Client {
  class CommitNoticingClient extends Base {}
  const query = function (this: pg.Client, ...args: unknown[]): unknown {
    const served = servedRequests.getStore();
    if (served?.writes && !served.closed && !served.committed) {
      const text = statementText(args[0]);
      // A statement whose text is not known (a submittable without one) may commit.
      if (text === undefined || mayCommit(this, text)) served.committed = true;
    }
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this client
    return Reflect.apply(Base.prototype.query, this, args);
  };
  CommitNoticingClient.prototype.query = query as pg.Client['query'];
  return CommitNoticingClient;
}
