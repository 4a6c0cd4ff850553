import { loadConfig, loadDotEnv, type AppConfig } from './app-config.js';
import { ConfigError } from './value-kinds.js';

/**
 * The configuration of a process entry point (service, CLI): `.env` if present, then the
 * environment. A bad value ends the process with exit code 1 and one line naming it.
 */
export function readConfigOrExit(): AppConfig {
  loadDotEnv();
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
