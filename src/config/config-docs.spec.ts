import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { CONFIG_DOCUMENTS } from './config-docs.js';
import { loadConfig } from './app-config.js';

describe.each(CONFIG_DOCUMENTS)('$path', (document) => {
  it('is what `npm run docs:config` writes from the table of variables', async () => {
    const committed = await readFile(document.path, 'utf8');
    const generated = await document.generate(committed);
    // toBe's diff would be of two whole files; the first differing line says enough.
    if (committed !== generated) {
      const lines = { committed: committed.split('\n'), generated: generated.split('\n') };
      const at = lines.generated.findIndex((line, i) => line !== lines.committed[i]);
      throw new Error(
        `${document.path} is stale: run \`npm run docs:config\` and commit it.\n` +
          `First difference at line ${at + 1}:\n` +
          `  committed: ${lines.committed[at] ?? '(end of file)'}\n` +
          `  generated: ${lines.generated[at] ?? '(end of file)'}`,
      );
    }
  });
});

describe('.env.example', () => {
  it('sets nothing: copied to .env, it leaves every default as it is', async () => {
    const text = await readFile('.env.example', 'utf8');
    expect(parseEnv(text)).toEqual({});
    expect(text).toMatch(/^# PORT=3000$/m);
    expect(loadConfig(parseEnv(text))).toEqual(loadConfig({}));
  });
});
