import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../src/config/app-config.js';
import {
  expectedStatuses,
  runExample,
  shellExamples,
  type ShellExample,
} from './support/doc-examples.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { eventually } from './support/eventually.js';

/**
 * Every shell example of README.md and docs/*.md runs, as written, against the real service
 * (with its demo data, as `npm start` has it), in document order; or is marked
 * `<!-- example: not run (why) -->`. Conventions: docs/development.md, "Examples in the docs".
 */
const FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const found = FILES.map((file) => shellExamples(file, readFileSync(file, 'utf8')));
const examples: ShellExample[] = found.flatMap((each) => each.examples);
const toRun = examples.filter((example) => example.notRun === undefined);
const notRun = examples.filter((example) => example.notRun !== undefined);

function title(example: ShellExample): string {
  return `${example.where} answers ${expectedStatuses(example.code).join(', ')}`;
}

describe('examples in the docs (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({
      seedDemo: true,
      webhooks: { ...loadConfig({}).webhooks, allowPrivateTargets: true },
    });
    env = { BASE: await listeningOrigin(t), KEY: t.apiKey, WEBHOOK_URL: receiver.url };
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it(`runs every shell example but those marked not run: ${notRun
    .map((example) => `${example.where} (${example.notRun})`)
    .join('; ')}`, () => {
    expect(found.flatMap((each) => each.problems)).toEqual([]);
    // The README's and the API reference's examples, at least, are found and run.
    expect(
      toRun.filter((example) => example.where.startsWith('README.md:')).length,
    ).toBeGreaterThan(0);
    expect(
      toRun.filter((example) => example.where.startsWith('docs/api.md:')).length,
    ).toBeGreaterThan(3);
  });

  for (const example of toRun) {
    it(title(example), async () => {
      const expected = expectedStatuses(example.code);
      const run = await runExample(example.code, env);
      const shown = run.statuses.map((status, index) =>
        expected[index] === '2xx' && /^2\d\d$/.test(status) ? '2xx' : status,
      );
      // On a failure, what the block printed comes with the answer.
      const output = run.exitCode !== 0 && {
        stdout: run.stdout,
        stderr: run.stderr,
        hint: 'if it cannot run in a test, mark it <!-- example: not run (why) -->',
      };
      expect({ exitCode: run.exitCode, statuses: shown, ...output }).toEqual({
        exitCode: 0,
        statuses: expected,
      });
    });
  }

  it('delivers to the receiver the subscription the webhook example made', async () => {
    const order = await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId: 1, quantity: 1 })
      .expect(201);
    const isThisOrder = (entry: { body: string }) =>
      (JSON.parse(entry.body) as { type: string; data: { id: number } }).data.id === order.body.id;
    await eventually(() => receiver.received.some(isThisOrder));
    expect(JSON.parse(receiver.received.find(isThisOrder)?.body ?? '{}')).toMatchObject({
      type: 'order.placed',
    });
  });
});

describe('the docs test itself', () => {
  it('finds shell blocks and their markers, and refuses a marker without a block or reason', () => {
    const markdown = [
      '<!-- example: not run (starts the service) -->',
      '',
      '```bash',
      'npm start',
      '```',
      '```json',
      '{"a": 1}',
      '```',
      '```sh',
      'curl "$BASE/x"',
      '```',
      '<!-- example: not run (why) -->',
      '```json',
      '```',
      '<!-- example: not run -->',
      'text',
      '<!-- example: not run (dangling) -->',
      'text',
    ].join('\n');
    expect(shellExamples('x.md', markdown)).toEqual({
      examples: [
        { where: 'x.md:3', code: 'npm start', notRun: 'starts the service' },
        { where: 'x.md:9', code: 'curl "$BASE/x"', notRun: undefined },
      ],
      problems: [
        'x.md:12: marker before a ```json block, not a shell one',
        'x.md:15: write the marker as <!-- example: not run (why) -->',
        'x.md:17: marker not followed by a shell block',
      ],
    });
  });

  it('expects 2xx of each curl unless its command comment starts with a status', () => {
    const code = [
      'curl "$BASE/a"',
      'ID=$(curl -s -d \'{"a": "#1"}\' \\',
      '     "$BASE/b" | jq .id)    # 201, created',
      '# 404 a whole-line comment is no command',
      'curl -X DELETE "$BASE/c/$ID"   # 409 ORDER_ALREADY_SHIPPED',
      'echo "# 500 not a comment"',
    ].join('\n');
    expect(expectedStatuses(code)).toEqual(['2xx', '201', '409']);
    expect(() => expectedStatuses('curl a && curl b  # 201')).toThrow('exactly one curl');
  });

  it('records the status each curl got and the exit code, so a wrong answer fails', async () => {
    const t = await createTestApp();
    try {
      const base = await listeningOrigin(t);
      const run = await runExample(
        'curl "$BASE/v1/store/orders"\ncurl -i -H "Authorization: Bearer $KEY" "$BASE/v1/store/orders/999"',
        { BASE: base, KEY: t.apiKey },
      );
      expect(run.statuses).toEqual(['401', '404']);
      expect(run.exitCode).toBe(0);
      const failed = await runExample('curl "$BASE/v1/store/orders" | grep -q nope', {
        BASE: base,
      });
      expect(failed.exitCode).not.toBe(0);
    } finally {
      await t.close();
    }
  });
});
