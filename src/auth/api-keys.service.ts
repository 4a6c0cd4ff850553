import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key.js';
import type { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeyRepository } from './api-key.repository.js';

/** Who is calling: the key's id and its display prefix (safe to log). */
export interface ApiKeyPrincipal {
  keyId: number;
  prefix: string;
  /** Start of the key's hash: names the key across deployments (rate-limit counters). */
  fingerprint: string;
}

export interface IssuedApiKey {
  key: string;
  record: ApiKeyEntity;
}

@Injectable()
export class ApiKeysService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly repository: ApiKeyRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.bootstrapApiKey) {
      await this.ensureKey(this.config.bootstrapApiKey, 'bootstrap');
    }
  }

  /** The caller behind `key`, or null when the key is malformed, unknown or revoked. */
  async verify(key: string): Promise<ApiKeyPrincipal | null> {
    if (!isWellFormedApiKey(key)) {
      return null;
    }
    const record = await this.repository.findActiveByHash(hashApiKey(key));
    return record
      ? { keyId: record.id, prefix: record.prefix, fingerprint: record.keyHash.slice(0, 16) }
      : null;
  }

  async issue(name: string): Promise<IssuedApiKey> {
    const key = generateApiKey();
    const record = await this.repository.insert(name, displayPrefix(key), hashApiKey(key));
    return { key, record };
  }

  list(): Promise<ApiKeyEntity[]> {
    return this.repository.listAll();
  }

  revoke(id: number): Promise<boolean> {
    return this.repository.revoke(id);
  }

  /** Makes sure `key` exists and is active (BOOTSTRAP_API_KEY, the development key). */
  async ensureKey(key: string, name: string): Promise<void> {
    const keyHash = hashApiKey(key);
    const existing = await this.repository.findByHash(keyHash);
    if (!existing) {
      await this.repository.insert(name, displayPrefix(key), keyHash);
      this.logger.log(`API key "${name}" (${displayPrefix(key)}…) registered`);
    } else if (existing.revokedAt) {
      await this.repository.reinstate(existing.id);
      this.logger.warn(
        `API key "${name}" (${displayPrefix(key)}…) was revoked; reinstated because it is configured`,
      );
    }
  }

  /**
   * The key a developer uses against the embedded database: kept in the data folder so it
   * survives restarts, replaced if it was revoked.
   */
  async ensureDevelopmentKey(file: string): Promise<string> {
    if (existsSync(file)) {
      const key = (await readFile(file, 'utf8')).trim();
      if (isWellFormedApiKey(key) && (await this.verify(key))) {
        return key;
      }
    }
    const { key } = await this.issue('development');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    return key;
  }
}
