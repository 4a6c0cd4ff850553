import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key.js';
import type { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { RefusedKeys } from './refused-keys.js';

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

/** Bound on the cache of verified keys: a flood of distinct keys cannot grow memory. */
const MAX_CACHED_KEYS = 10_000;
/** Bound on the keys remembered as refused (about 1.5 MB at most). */
const MAX_REFUSED_KEYS = 10_000;
/** last_used_at is written at most this often per key, in one statement for all keys. */
const LAST_USED_FLUSH_MS = 60_000;

interface CachedKey {
  principal: Promise<ApiKeyPrincipal | null>;
  expiresAt: number;
  /** The principal once the lookup has found it: read without an await (recall). */
  known?: ApiKeyPrincipal;
}

@Injectable()
export class ApiKeysService
  implements OnApplicationBootstrap, OnModuleInit, BeforeApplicationShutdown
{
  private readonly logger = new Logger(ApiKeysService.name);
  /** Verified keys by hash, oldest first (a Map keeps insertion order). */
  private readonly verified = new Map<string, CachedKey>();
  /** Keys the database lately refused (unknown or revoked), by hash. */
  private readonly refused: RefusedKeys;
  /** Keys used since the last flush, and when (epoch ms: no allocation on the request path). */
  private readonly usedSince = new Map<number, number>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly repository: ApiKeyRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.refused = new RefusedKeys(MAX_REFUSED_KEYS, config.apiKeyCacheTtlMs);
  }

  onModuleInit(): void {
    this.flushTimer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.bootstrapApiKey) {
      await this.ensureKey(this.config.bootstrapApiKey, 'bootstrap');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }

  /**
   * What memory alone says of `key`, without the database: its caller when it was verified
   * lately, null when it is malformed or was refused lately, undefined when only the database
   * can tell (verify). The rate limiter asks this first, so that a key memory does not know is
   * looked up only while its address is within its budget (docs/operating.md, Unknown API keys).
   */
  recall(key: string): ApiKeyPrincipal | null | undefined {
    if (!isWellFormedApiKey(key)) {
      return null;
    }
    const keyHash = hashApiKey(key);
    const now = Date.now();
    const cached = this.verified.get(keyHash);
    if (cached?.known && cached.expiresAt > now) {
      this.usedSince.set(cached.known.keyId, now);
      return cached.known;
    }
    return this.refused.has(keyHash, now) ? null : undefined;
  }

  /**
   * The caller behind `key`, or null when the key is malformed, unknown or revoked. What the
   * database answers is trusted from memory for API_KEY_CACHE_TTL_MS (at most 30 s, so a
   * revocation or a new key reaches every instance within 30 s): in steady state a valid key
   * costs no database round trip, and neither does a refused key tried again. Lookups of one
   * key at once share one query.
   */
  async verify(key: string): Promise<ApiKeyPrincipal | null> {
    if (!isWellFormedApiKey(key)) {
      return null;
    }
    const keyHash = hashApiKey(key);
    const now = Date.now();
    let cached = this.verified.get(keyHash);
    if (!cached || cached.expiresAt <= now) {
      if (this.refused.has(keyHash, now)) return null;
      cached = { principal: this.lookUp(keyHash), expiresAt: now + this.config.apiKeyCacheTtlMs };
      this.remember(keyHash, cached);
    }
    const principal = await cached.principal;
    if (principal) {
      cached.known = principal;
      this.usedSince.set(principal.keyId, now);
    }
    return principal;
  }

  private async lookUp(keyHash: string): Promise<ApiKeyPrincipal | null> {
    try {
      const record = await this.repository.findActiveByHash(keyHash);
      if (!record) {
        // Remembered apart from valid keys: a flood of unknown keys cannot evict those.
        this.verified.delete(keyHash);
        this.refused.add(keyHash, Date.now());
        return null;
      }
      return { keyId: record.id, prefix: record.prefix, fingerprint: keyHash.slice(0, 16) };
    } catch (error) {
      // Not an answer: the next request asks again.
      this.verified.delete(keyHash);
      throw error;
    }
  }

  private remember(keyHash: string, entry: CachedKey): void {
    if (this.config.apiKeyCacheTtlMs === 0) return;
    this.verified.delete(keyHash);
    if (this.verified.size >= MAX_CACHED_KEYS) {
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(keyHash, entry);
  }

  /** Writes last_used_at for the keys used since the last flush, off the request path. */
  async flushLastUsed(): Promise<void> {
    if (this.usedSince.size === 0) return;
    const used = [...this.usedSince].map(([id, at]): [number, Date] => [id, new Date(at)]);
    this.usedSince.clear();
    try {
      await this.repository.recordLastUsed(used);
    } catch (error) {
      this.logger.warn(
        `could not record when keys were last used: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async issue(name: string): Promise<IssuedApiKey> {
    const key = generateApiKey();
    const keyHash = hashApiKey(key);
    const record = await this.repository.insert(name, displayPrefix(key), keyHash);
    this.refused.delete(keyHash);
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
    // Valid from now on, on this instance at once; other instances within API_KEY_CACHE_TTL_MS.
    this.refused.delete(keyHash);
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
