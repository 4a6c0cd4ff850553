import { toAppConfig } from './app-config.js';
import {
  CONFIG_DEFAULTS,
  CONFIG_VARIABLES,
  configVariableEntries,
  readConfigVariables,
} from './config-variables.js';

/** Every variable that has an example set to it: the values .env.example shows. */
const EXAMPLES = Object.fromEntries(
  configVariableEntries().flatMap(([name, { example }]) =>
    example === undefined ? [] : [[name, example]],
  ),
);

describe('CONFIG_VARIABLES', () => {
  it('accepts its examples, all set at once', () => {
    expect(Object.keys(EXAMPLES)).toContain('DATABASE_URL');
    expect(() => readConfigVariables(EXAMPLES)).not.toThrow();
  });

  it('reaches AppConfig in every variable', () => {
    const read = new Set<string | symbol>();
    const values = new Proxy(readConfigVariables(EXAMPLES), {
      get(target, name, receiver) {
        read.add(name);
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    toAppConfig(values);
    expect([...read].sort()).toEqual(Object.keys(CONFIG_VARIABLES).sort());
  });

  it('gives CONFIG_DEFAULTS the fixed defaults, as written in the environment', () => {
    expect(CONFIG_DEFAULTS).toMatchObject({
      PORT: 3000,
      PETS_SUNSET_AT: '2027-05-01T00:00:00Z',
      MIGRATE_ON_START: true,
      WEBHOOK_RETRY_SCHEDULE: '5,30,120,600,3600,21600,43200',
    });
    // Computed defaults and variables without one are not there.
    expect(Object.keys(CONFIG_DEFAULTS)).not.toContain('DB_MAX_STREAMS');
    expect(Object.keys(CONFIG_DEFAULTS)).not.toContain('DATABASE_URL');
  });

  it('treats a blank value as unset', () => {
    expect(readConfigVariables({ PORT: '  ', DATABASE_URL: '' })).toMatchObject({
      PORT: 3000,
      DATABASE_URL: undefined,
    });
  });
});
