import type { LoggerService } from '@nestjs/common';

/**
 * Nest's start-up lines: a line per module and per route (about 60), then "successfully
 * started", which Nest says before the port is even bound. Useful when debugging the wiring,
 * noise at `info`: they would push the start-up banner off a terminal. main.ts says where the
 * service listens once it does.
 */
const START_UP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** The application's logger (nestjs-pino's), with Nest's start-up lines at `debug`. */
export class AppLogger implements LoggerService {
  constructor(private readonly logger: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) {
      this.logger.debug?.(message, ...optionalParams);
    } else {
      this.logger.log(message, ...optionalParams);
    }
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.fatal?.(message, ...optionalParams);
  }
}
