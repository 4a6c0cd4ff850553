import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { runStatement } from '../../database/statement.js';
import { serviceSecretStatements } from './service-secret-statements.js';

/**
 * Secrets the service makes for itself and every instance must share (the cursor key): made
 * once by whichever instance needs one first, then read by all from `service_secrets`.
 */
@Injectable()
export class ServiceSecretRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The secret named `name`, created with 32 random bytes if there is none yet. */
  async getOrCreate(name: string): Promise<Buffer> {
    for (;;) {
      const secret = await this.insertOrRead(name);
      // Empty only when another instance inserted it after this statement's snapshot: read again.
      if (secret) return secret;
    }
  }

  private async insertOrRead(name: string): Promise<Buffer | undefined> {
    const rows = await runStatement<{ secret: Buffer }>(
      this.dataSource,
      serviceSecretStatements.insertOrRead(name, randomBytes(32)),
    );
    return rows[0]?.secret;
  }
}
