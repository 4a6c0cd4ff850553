import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { DatabaseLifecycle } from './database-lifecycle.js';
import { prepareDatabase } from './prepare-database.js';
import { ReadRouter, readRoutingEnabled } from './read-router.js';
import { typeOrmOptions } from './typeorm-options.js';

/** Where the database is: the pooled URL (maybe PgBouncer) and, when distinct, a direct one. */
export type DatabaseConfig = Pick<
  AppConfig,
  'databaseDirectUrl' | 'db' | 'replicas' | 'redisUrl'
> & {
  databaseUrl: string;
};

@Module({})
export class DatabaseModule {
  static forRoot(config: DatabaseConfig): DynamicModule {
    const { databaseUrl, db } = config;
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => {
            // Before the pool opens: its sessions must start with the role's timeouts.
            const { applied } = await prepareDatabase(
              config.databaseDirectUrl ?? databaseUrl,
              db,
              db.migrateOnStart,
            );
            if (applied.length > 0) {
              new Logger('Database').log(`applied migrations: ${applied.join(', ')}`);
            }
            return {
              ...(await typeOrmOptions(databaseUrl, db, {
                responseDeadline: true,
                noticeCommits: readRoutingEnabled(config),
              })),
              autoLoadEntities: true,
              // Start-up fails fast with one clear error instead of retrying for half a minute.
              retryAttempts: 0,
            };
          },
        }),
      ],
      // Global: the repositories of every feature route their reads through the ReadRouter.
      global: true,
      // With read routing, app.setup.ts adds readYourWritesMiddleware.
      providers: [DatabaseLifecycle, ReadRouter],
      exports: [ReadRouter],
    };
  }
}
