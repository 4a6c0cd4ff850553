import 'reflect-metadata';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { pathToFileURL } from 'node:url';
import type { RuntimeConfig } from '../app.module.js';
import { AppConfigModule } from '../config/app-config.module.js';
import { readConfigOrExit } from '../config/read-config.js';
import { DatabaseModule } from '../database/database.module.js';
import { openDatabase } from '../database/embedded-database.js';
import { AuthModule } from './auth.module.js';
import { ApiKeysService } from './api-keys.service.js';

export const USAGE = `Usage: npm run apikey -- <command>
  create <name>   issue a key; it is printed once and never stored
  list            list keys (id, name, display prefix, dates)
  revoke <id>     revoke a key; every instance refuses it within 30 seconds`;

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

@Module({})
class ApiKeyCliModule {
  static forRoot(config: RuntimeConfig): DynamicModule {
    return {
      module: ApiKeyCliModule,
      imports: [AppConfigModule.forRoot(config), DatabaseModule.forRoot(config), AuthModule],
    };
  }
}

/** Runs one `apikey` command against `config.databaseUrl`; returns the exit code. */
export async function runApiKeyCommand(
  args: string[],
  config: RuntimeConfig,
  output: CliOutput,
): Promise<number> {
  const [command, argument = ''] = args;
  const name = argument.trim();
  if (!(
    (command === 'create' && name) ||
    command === 'list' ||
    (command === 'revoke' && /^\d{1,15}$/.test(argument))
  )) {
    output.err(`${USAGE}\n`);
    return 2;
  }
  // The CLI migrates like the service does, but never loads demo data.
  const app = await NestFactory.createApplicationContext(
    ApiKeyCliModule.forRoot({ ...config, seedDemo: false }),
    // A failed start throws to main(), which says why in one line, instead of Nest ending the
    // process (which also ended the e2e worker that runs this command).
    { logger: ['error', 'warn'], abortOnError: false },
  );
  try {
    const keys = app.get(ApiKeysService);
    if (command === 'create') {
      const { key, record } = await keys.issue(name.slice(0, 100));
      output.out(
        `Created key ${record.id} "${record.name}". Store it now; it is not shown again:\n${key}\n`,
      );
      return 0;
    }
    if (command === 'list') {
      const lines = (await keys.list()).map((key) =>
        [
          key.id,
          key.name,
          `${key.prefix}…`,
          key.createdAt.toISOString(),
          key.lastUsedAt?.toISOString() ?? '-',
          key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active',
        ].join('\t'),
      );
      output.out(
        lines.length
          ? `id\tname\tprefix\tcreated\tlast used\tstatus\n${lines.join('\n')}\n`
          : 'No API keys.\n',
      );
      return 0;
    }
    if (!(await keys.revoke(Number(argument)))) {
      output.err(`No API key with id ${argument}.\n`);
      return 1;
    }
    output.out(`Revoked key ${argument}.\n`);
    return 0;
  } finally {
    await app.close();
  }
}

async function main(): Promise<number> {
  const config = readConfigOrExit();
  Logger.overrideLogger(['error', 'warn']);
  const database = await openDatabase(config);
  try {
    return await runApiKeyCommand(
      process.argv.slice(2),
      { ...config, databaseUrl: database.url },
      {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
      },
    );
  } finally {
    await database.embedded?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `apikey failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
