import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationFailedError } from '../errors/domain-error.js';
import { INT64_MAX } from '../http/int64-id.pipe.js';
import { ServiceSecretRepository } from './service-secret.repository.js';

/**
 * What a cursor is valid for: the list, the order and the filters of the query that issued
 * it. Filters are given in a canonical form (names sorted, values normalised), so the same
 * query written differently still fits its cursors; the page size is left out: it may change.
 */
export interface CursorBinding {
  list: string;
  order: 'asc' | 'desc';
  filters: ReadonlyArray<readonly [name: string, value: string]>;
}

const ID_BYTES = 8;
const MAC_BYTES = 16;
/** base64url of 8 + 16 bytes. */
const CURSOR_PATTERN = /^[A-Za-z0-9_-]{32}$/;
const SECRET_NAME = 'page-cursor-hmac';

/**
 * Opaque page cursors: the last id of a page and a truncated HMAC-SHA256 that binds it to its
 * query, so a cursor that was altered, forged or reused with other filters is refused. The key
 * lives in the database (service_secrets), shared by every instance and kept across restarts.
 */
@Injectable()
export class CursorCodec {
  private secret: Promise<Buffer> | undefined;

  constructor(private readonly secrets: ServiceSecretRepository) {}

  async encode(lastId: bigint, binding: CursorBinding): Promise<string> {
    const id = Buffer.alloc(ID_BYTES);
    id.writeBigUInt64BE(lastId);
    return Buffer.concat([id, await this.mac(id, binding)]).toString('base64url');
  }

  /** The id a cursor continues after; 400 VALIDATION_FAILED naming `cursor` if it is not ours. */
  async decode(cursor: string, binding: CursorBinding): Promise<bigint> {
    const bytes = CURSOR_PATTERN.test(cursor) ? Buffer.from(cursor, 'base64url') : undefined;
    if (bytes?.length === ID_BYTES + MAC_BYTES) {
      const id = bytes.subarray(0, ID_BYTES);
      const mac = await this.mac(id, binding);
      const lastId = id.readBigUInt64BE();
      if (timingSafeEqual(mac, bytes.subarray(ID_BYTES)) && lastId >= 1n && lastId <= INT64_MAX) {
        return lastId;
      }
    }
    throw new ValidationFailedError(
      'cursor is not a nextCursor this service issued for this query (same filters and order)',
    );
  }

  private async mac(id: Buffer, binding: CursorBinding): Promise<Buffer> {
    const key = await this.key();
    return createHmac('sha256', key)
      .update(JSON.stringify([binding.list, binding.order, binding.filters, id.toString('hex')]))
      .digest()
      .subarray(0, MAC_BYTES);
  }

  /** Read once per process; a failed read (database down) is retried by the next request. */
  private key(): Promise<Buffer> {
    this.secret ??= this.secrets.getOrCreate(SECRET_NAME).catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }
}
