import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { DatabaseLifecycle } from './database-lifecycle.js';
import { typeOrmOptions } from './typeorm-options.js';

@Module({})
export class DatabaseModule {
  static forRoot(databaseUrl: string, db: AppConfig['db']): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => ({
            ...(await typeOrmOptions(databaseUrl, db)),
            autoLoadEntities: true,
            // Start-up fails fast with one clear error instead of retrying for half a minute.
            retryAttempts: 0,
          }),
        }),
      ],
      providers: [DatabaseLifecycle],
    };
  }
}
