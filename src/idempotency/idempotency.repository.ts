import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AttachedWrite } from '../database/attached-writes.js';
import { runStatement } from '../database/statement.js';
import {
  idempotencyStatements as statements,
  type ResponseToRecord,
} from './idempotency-statements.js';

/** Whose key it is: the API key, the version and the operation (docs/api.md, Idempotency-Key). */
export interface IdempotencyScope {
  apiKeyId: number;
  version: string;
  operation: string;
  key: string;
}

/** An answer as remembered: status, body (JSON text, as sent) and Location. */
export interface StoredResponse {
  status: number;
  body: string;
  location: string | null;
}

/**
 * How a request holds a key: its body's fingerprint, the token that makes the record its own,
 * how long it holds it (the lock) and how long the answer is remembered.
 */
export interface HoldTerms {
  fingerprint: Buffer;
  token: string;
  lockSeconds: number;
  retentionSeconds: number;
}

/** A record this request holds: it alone may complete it (the token). */
export interface Claim {
  id: string;
  token: string;
}

/** A record found under the scope, as the claim read it. */
export interface ExistingRecord {
  id: string;
  fingerprint: Buffer;
  /** Past its retention: the key is free again. */
  expired: boolean;
  /** `in_progress` whose lock has not expired: its request may still be running. */
  running: boolean;
  /** `in_progress` whose lock has expired: its request ended without an answer (a crash). */
  abandoned: boolean;
  answer: StoredResponse | null;
}

export type ClaimResult = { claimed: Claim } | { existing: ExistingRecord } | { raced: true };

interface ClaimRow {
  id: string;
  claimed: boolean;
  fingerprint: Buffer | null;
  state: 'in_progress' | 'completed' | null;
  locked: boolean | null;
  expired: boolean | null;
  response_status: number | null;
  response_body: string | null;
  response_location: string | null;
}

/** The attached write's output: what it recorded, or null when the claim was lost. */
interface RecordedRow {
  status: number;
  body: string;
  location: string | null;
}

/** Runs every statement about Idempotency-Key records (src/idempotency/idempotency-statements.ts). */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One round trip: the record under the scope if there is one (read without waiting on any
   * lock, and without writing: a replay writes nothing), else a new `in_progress` record held
   * by `token`. Two requests that both saw nothing meet at the unique constraint: one inserts,
   * the other inserts nothing and sees nothing in its snapshot (`raced`: read again).
   */
  async claim(scope: IdempotencyScope, terms: HoldTerms): Promise<ClaimResult> {
    const rows = await runStatement<ClaimRow>(this.dataSource, statements.claim(scope, terms));
    const row = rows[0];
    if (!row) return { raced: true };
    if (row.claimed) return { claimed: { id: row.id, token: terms.token } };
    const completed = row.state === 'completed';
    return {
      existing: {
        id: row.id,
        fingerprint: row.fingerprint ?? Buffer.alloc(0),
        expired: row.expired === true,
        running: !completed && row.locked === true,
        abandoned: !completed && row.locked !== true,
        answer:
          completed && row.response_status !== null && row.response_body !== null
            ? {
                status: row.response_status,
                body: row.response_body,
                location: row.response_location,
              }
            : null,
      },
    };
  }

  /**
   * Takes over a record whose key is free again (expired) or whose request ended without an
   * answer (lock expired): null when it is neither any more (another request took it first,
   * or the purge deleted it).
   */
  async takeOver(id: string, terms: HoldTerms): Promise<Claim | null> {
    const rows = await runStatement<{ id: string }>(
      this.dataSource,
      statements.takeOver(id, terms),
    );
    return rows[0] ? { id: rows[0].id, token: terms.token } : null;
  }

  /**
   * The attached write that completes a claimed record in the statement that creates the resource
   * (see idempotencyStatements.recordResponse); IdempotencyRepository.recorded reads its output.
   */
  recordingAttachedWrite(claim: Claim, answer: ResponseToRecord): AttachedWrite {
    return statements.recordResponse(claim, answer);
  }

  /** Reads the recording attached write's output column: null when the claim was lost. */
  static recorded(output: unknown): StoredResponse | null {
    if (output === null || output === undefined) return null;
    const row = output as RecordedRow;
    return { status: row.status, body: row.body, location: row.location };
  }

  /** Frees a claimed key (the request failed with a 5xx or was refused before it ran). */
  async release(claim: Claim): Promise<void> {
    await runStatement(this.dataSource, statements.release(claim));
  }

  /**
   * Deletes up to `batchSize` expired records; answers how many. SKIP LOCKED: instances
   * purging at once, or a request taking an expired key over, never wait on each other.
   */
  async purgeExpired(batchSize: number): Promise<number> {
    const rows = await runStatement<{ deleted: number }>(
      this.dataSource,
      statements.purgeExpired(batchSize),
    );
    return rows[0]?.deleted ?? 0;
  }
}
