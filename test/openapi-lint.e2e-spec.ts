import SwaggerParser from '@apidevtools/swagger-parser';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { createTestApp } from './support/test-app.js';

/*
 * The OpenAPI document as the service serves it (GET /docs-json) is valid OpenAPI 3 and passes
 * Spectral with the project's ruleset (.spectral.yaml: spectral:oas and the OWASP API security
 * rules) without a single error. Run alone with `npm run lint:openapi`; the documents and the
 * Spectral report are left in test-output/ to read.
 */

const OUTPUT = resolve('test-output');
const SPECTRAL = resolve('node_modules', '.bin', 'spectral');
const RULESET = resolve('.spectral.yaml');

/** One Spectral finding, as its JSON format reports it. */
interface SpectralResult {
  code: string | number;
  message: string;
  path: Array<string | number>;
  severity: number;
  source?: string;
}
const SEVERITIES = ['error', 'warning', 'information', 'hint'];

/** Runs the installed Spectral CLI on `files` and returns every finding, whatever its severity. */
function spectralLint(files: string[]): Promise<SpectralResult[]> {
  return new Promise((resolveResults, reject) => {
    const child = spawn(
      SPECTRAL,
      ['lint', ...files, '--ruleset', RULESET, '--format', 'json', '--quiet'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      // 0: no errors; 1: errors found (listed in the report); anything else: Spectral failed.
      if (code !== 0 && code !== 1) {
        reject(new Error(`spectral exited with ${code}: ${stderr || stdout}`));
        return;
      }
      try {
        resolveResults(JSON.parse(stdout) as SpectralResult[]);
      } catch {
        reject(new Error(`spectral printed no JSON report (exit ${code}): ${stderr || stdout}`));
      }
    });
  });
}

function describeResult(result: SpectralResult): string {
  const file = result.source ? relative(process.cwd(), result.source) : '?';
  return `${SEVERITIES[result.severity]} ${result.code} at ${file}#/${result.path.join('/')}: ${result.message}`;
}

describe('OpenAPI document: validation and lint (e2e)', () => {
  /** The document with the default configuration, and with every optional server configured. */
  const documents: Record<string, unknown> = {};

  beforeAll(async () => {
    const variants = {
      'openapi.json': {},
      'openapi-with-servers.json': {
        publicBaseUrl: 'https://api.example.test',
        stagingBaseUrl: 'https://staging.example.test',
      },
    };
    await mkdir(OUTPUT, { recursive: true });
    for (const [file, overrides] of Object.entries(variants)) {
      const t = await createTestApp(overrides);
      try {
        // v1 (/docs-json, the same as /openapi/v1.json) and v2, each held to the same bar.
        documents[file] = (await t.http.get('/docs-json').expect(200)).body;
        documents[`v2-${file}`] = (await t.http.get('/openapi/v2.json').expect(200)).body;
      } finally {
        await t.close();
      }
      for (const name of [file, `v2-${file}`]) {
        await writeFile(resolve(OUTPUT, name), `${JSON.stringify(documents[name], null, 2)}\n`);
      }
    }
  });

  it('validates as OpenAPI 3 (swagger-parser)', async () => {
    for (const document of Object.values(documents)) {
      // validate() dereferences in place: give it a copy.
      await expect(
        SwaggerParser.validate(
          structuredClone(document) as Parameters<typeof SwaggerParser.validate>[0],
        ),
      ).resolves.toBeDefined();
    }
  });

  it('passes Spectral (spectral:oas and OWASP, .spectral.yaml) with no errors', async () => {
    const results = await spectralLint(Object.keys(documents).map((file) => resolve(OUTPUT, file)));
    await writeFile(resolve(OUTPUT, 'openapi-lint.json'), `${JSON.stringify(results, null, 2)}\n`);
    const errors = results.filter((result) => result.severity === 0).map(describeResult);
    expect(errors).toEqual([]);
  }, 120_000);
});
