import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { parseWalPosition, type WalPosition } from './wal-position.js';

/**
 * The primary's WAL position after each commit of one request, learned in the commit's own
 * round trip: the statement that commits is followed on its connection, without waiting, by
 * `SELECT pg_current_wal_insert_lsn()` (pg's pipeline mode; each has its own Sync, so the second
 * runs once the first has committed, and answers a position at or past its commit record).
 * Read-your-writes records the highest one (docs/operating.md, Read replicas). PostgreSQL tells
 * no commit's position in the answer of the statement that commits, so one short statement
 * stays, but not a round trip of its own.
 */
export class CommitPositions {
  /** The highest position learned after one of the request's commits. */
  private highest: WalPosition | undefined;
  /** Positions asked for and not answered yet. */
  private readonly asked = new Set<Promise<void>>();
  /** A commit whose position was not learned (its connection failed). */
  private missed = false;
  /**
   * Settled: the request's answer is under way. Work it started that goes on (a timer made
   * while it was served keeps its context) asks for no more positions.
   */
  closed = false;

  /**
   * Waits for the positions asked for, and closes: the highest, undefined when the request
   * committed nothing; `missed` when a commit's position is not known.
   */
  async settle(): Promise<{ position: WalPosition | undefined; missed: boolean }> {
    while (this.asked.size > 0) await Promise.all(this.asked);
    this.closed = true;
    return { position: this.highest, missed: this.missed };
  }

  /** @internal Called by the primary's client after a statement that may commit. */
  expect(answer: Promise<WalPosition>): void {
    const asked = answer.then(
      (position) => {
        if (this.highest === undefined || position > this.highest) this.highest = position;
      },
      () => {
        this.missed = true;
      },
    );
    this.asked.add(asked);
    void asked.finally(() => this.asked.delete(asked));
  }
}

const requestCommits = new AsyncLocalStorage<CommitPositions>();

/** Runs `serve` with the commits of the primary's statements it sends recorded in `commits`. */
export function recordingCommits<T>(commits: CommitPositions, serve: () => T): T {
  return requestCommits.run(commits, serve);
}

const POSITION_SQL = 'SELECT pg_current_wal_insert_lsn()::text AS position';

/**
 * A statement sent outside a transaction block commits on its own; in a block ('T', or 'E' once
 * failed), COMMIT (or END) commits. BEGIN and START TRANSACTION open a block: nothing yet. A
 * client not yet told its status (null: its first statement, sent as it connects) is in none.
 */
const OPENS_BLOCK = /^\s*(begin|start\s+transaction)\b/i;
const ENDS_BLOCK = /^\s*(commit|end)\b/i;

function mayCommit(client: pg.Client, sql: string): boolean {
  const status = client.getTransactionStatus() as string | null;
  return status === 'T' || status === 'E' ? ENDS_BLOCK.test(sql) : !OPENS_BLOCK.test(sql);
}

type Query = pg.Client['query'];
type Callback = (error: Error | null, result?: pg.QueryResult) => void;

/**
 * Turns pg's pipeline mode on or off. Typed read-only (a constructor option), but pg reads it
 * each time it sends, and off again once nothing is owed it behaves as a client never on.
 */
function pipelining(client: pg.Client, on: boolean): void {
  (client as { pipeline: boolean }).pipeline = on;
}

/**
 * `Base` (pg's Client or a subclass), except that a text statement that may commit, sent while
 * a request records its commits (recordingCommits), is followed by the position query in the
 * same round trip. The statement's answer is given once both are in, so the connection has
 * nothing owed when its user sends the next statement or releases it, and pipeline mode (which
 * refuses COPY and cursors) is on only for that pair.
 */
export function clientLearningCommitPositions(Base: typeof pg.Client): typeof pg.Client {
  class CommitPositionsClient extends Base {}
  const query = function (this: pg.Client, ...args: unknown[]): unknown {
    const commits = requestCommits.getStore();
    const send = (queryArgs: unknown[]): unknown =>
      // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this client
      Reflect.apply(Base.prototype.query, this, queryArgs);
    if (commits === undefined || commits.closed) return send(args);
    // (text or config, values?, callback?): pg-pool's query() passes a callback.
    const [first, ...rest] = args;
    const text =
      typeof first === 'string'
        ? first
        : typeof first === 'object' &&
            first !== null &&
            !('submit' in first) &&
            !('callback' in first)
          ? (first as pg.QueryConfig).text
          : undefined;
    if (text === undefined || !mayCommit(this, text)) return send(args);
    const callback = typeof rest.at(-1) === 'function' ? (rest.pop() as Callback) : undefined;
    pipelining(this, true);
    const answer = send([first, ...rest]) as Promise<pg.QueryResult>;
    const position = (send([POSITION_SQL]) as Promise<pg.QueryResult<{ position: string }>>).then(
      (result) => parseWalPosition(result.rows[0].position),
    );
    commits.expect(position);
    const both = Promise.allSettled([answer, position]).then(() => {
      pipelining(this, false);
      return answer;
    });
    if (callback === undefined) return both;
    both.then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
    return undefined;
  };
  CommitPositionsClient.prototype.query = query as Query;
  return CommitPositionsClient;
}
