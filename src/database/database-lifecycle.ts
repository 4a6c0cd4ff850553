import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { seedDemoData } from './demo-seed.js';
import { pooledTimeoutsMismatch } from './prepare-database.js';

/**
 * Before the app serves: checks that the pool's sessions have the role's timeouts, and loads
 * demo data when asked. (Migrations ran before the pool opened, over the direct connection:
 * see DatabaseModule.)
 */
@Injectable()
export class DatabaseLifecycle implements OnModuleInit {
  private readonly logger = new Logger('Database');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    // Said, not fatal: a rolling change of DB_STATEMENT_TIMEOUT_MS behind PgBouncer passes
    // through this state until its old server connections are replaced.
    const mismatch = await pooledTimeoutsMismatch(this.dataSource, this.config.db);
    if (mismatch) this.logger.error(`database timeouts not in force: ${mismatch}`);
    if (this.config.seedDemo && (await seedDemoData(this.dataSource.manager))) {
      this.logger.log('loaded the demo data');
    }
  }
}
