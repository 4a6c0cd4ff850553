// Writes docs/configuration.md's table of variables and .env.example from the table in
// src/config/config-variables.ts (built into dist/ first by `npm run docs:config`).
import { readFile, writeFile } from 'node:fs/promises';
import { CONFIG_DOCUMENTS } from '../dist/config/config-docs.js';

for (const document of CONFIG_DOCUMENTS) {
  const current = await readFile(document.path, 'utf8');
  const generated = await document.generate(current);
  if (generated !== current) {
    await writeFile(document.path, generated);
    console.log(`wrote ${document.path}`);
  }
}
