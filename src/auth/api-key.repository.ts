import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { runStatement } from '../database/statement.js';
import { apiKeyStatements } from './api-key-statements.js';
import { ApiKeyEntity } from './api-key.entity.js';

@Injectable()
export class ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ keyHash, revokedAt: IsNull() });
  }

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ keyHash });
  }

  /** Inserts the key unless its hash exists already (replicas may bootstrap it together). */
  async insert(name: string, prefix: string, keyHash: string): Promise<ApiKeyEntity> {
    await this.keys
      .createQueryBuilder()
      .insert()
      .values({ name, prefix, keyHash })
      .orIgnore()
      .execute();
    return this.keys.findOneByOrFail({ keyHash });
  }

  listAll(): Promise<ApiKeyEntity[]> {
    return this.keys.find({ order: { id: 'ASC' } });
  }

  /** Marks the key revoked; false when no such key exists. Revoking twice keeps the first date. */
  async revoke(id: number): Promise<boolean> {
    const result = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'COALESCE(revoked_at, now())' })
      .where('id = :id', { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Un-revokes a key (used for BOOTSTRAP_API_KEY, which must work when configured). */
  async reinstate(id: number): Promise<void> {
    await this.keys.update({ id }, { revokedAt: null });
  }

  /** Sets last_used_at of many keys in one statement; never moves a date backwards. */
  async recordLastUsed(used: Array<[id: number, at: Date]>): Promise<void> {
    await runStatement(this.keys, apiKeyStatements.recordLastUsed(used));
  }
}
