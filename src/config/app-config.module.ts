import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './app-config.js';
import { APP_CONFIG } from './app-config.provider.js';

/** Makes the validated AppConfig injectable everywhere (`@InjectConfig()`). */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
