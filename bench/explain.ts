/**
 * npm run bench:explain — the plans of v2's list pages on 1 000 000 orders and 1 000 000 pets.
 * The built service runs with bench/query-log.ts preloaded; each case is one real request over
 * HTTP, and the list statement it sent (text and parameters, as the repository built them) is
 * run again under EXPLAIN (ANALYZE, BUFFERS). Exit 1 when a case reads its list's table
 * (orders, categories or pets) with a Seq Scan, or sorts more than a tenth of it. See
 * bench/README.md.
 */
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openBenchDatabase } from './database.js';
import type { LoggedQuery } from './query-log.js';
import { growOrders, growPets, seedBase } from './seed.js';
import { cursorAfter, getJson, startProductionService } from './service.js';
import { listCases, type ListCase } from './v2-cases.js';
import { runMain, runNode } from './processes.js';
import { saveReport } from './report.js';

const ORDERS = Number(process.env.BENCH_EXPLAIN_ORDERS ?? 1_000_000);
const PETS = Number(process.env.BENCH_EXPLAIN_PETS ?? 1_000_000);
const CATEGORIES = 100_000;
const PAGE = 100;
/** A Sort whose input is more than this share of the table counts as sorting the table. */
const SORT_LIMIT_SHARE = 0.1;
const ROOT = resolve(import.meta.dirname, '..');

/** A node of EXPLAIN (FORMAT JSON). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

interface Explained {
  case: ListCase;
  /** The answer's items. */
  items: number;
  indexes: string[];
  shape: string;
  /** Rows of the table read (returned or filtered out) by its scans. */
  rowsRead: number;
  /** Largest input of a Sort node (0: no sort). */
  sorted: number;
  buffers: number;
  executionMs: number;
  problems: string[];
  sql: string;
}

function walk(node: PlanNode, visit: (node: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/** `Limit → Merge Append → [Index Scan (ix_a), Index Scan (ix_b)]`, on one line. */
function shapeOf(node: PlanNode): string {
  const name = `${node['Node Type']}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`;
  const children = (node.Plans ?? []).map(shapeOf);
  if (children.length === 0) return name;
  return `${name} → ${children.length === 1 ? children[0] : `[${children.join(', ')}]`}`;
}

function analyse(
  testCase: ListCase,
  items: number,
  sql: string,
  plan: { Plan: PlanNode; 'Execution Time': number },
  tableRows: number,
): Explained {
  const table = testCase.table;
  const indexes = new Set<string>();
  const problems: string[] = [];
  let rowsRead = 0;
  let sorted = 0;
  walk(plan.Plan, (node) => {
    if (node['Index Name']) indexes.add(node['Index Name']);
    if (node['Relation Name'] === table) {
      rowsRead +=
        (node['Actual Rows'] +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        node['Actual Loops'];
      if (node['Node Type'] === 'Seq Scan') problems.push(`Seq Scan on ${table}`);
    }
    if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') {
      const input = (node.Plans ?? []).reduce(
        (sum, child) => sum + child['Actual Rows'] * child['Actual Loops'],
        0,
      );
      sorted = Math.max(sorted, input);
      if (input > tableRows * SORT_LIMIT_SHARE) {
        problems.push(`${node['Node Type']} of ${input.toLocaleString('en')} rows`);
      }
    }
  });
  return {
    case: testCase,
    items,
    indexes: [...indexes],
    shape: shapeOf(plan.Plan),
    rowsRead,
    sorted,
    buffers: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
    executionMs: plan['Execution Time'],
    problems,
    sql,
  };
}

/** The list statement among those one request sent: the SELECT that reads the list's table. */
function listStatement(logged: LoggedQuery[], testCase: ListCase): LoggedQuery {
  const table = testCase.table;
  const found = logged.filter(
    ({ text }) => /^\s*SELECT\b/i.test(text) && new RegExp(`\\bFROM ${table}\\b`).test(text),
  );
  if (found.length !== 1) {
    throw new Error(
      `${testCase.name}: expected one list statement, the request sent ${found.length}:\n` +
        logged.map(({ text }) => text).join('\n---\n'),
    );
  }
  return found[0];
}

async function main(): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-explain-'));
  const queryLog = join(workDir, 'queries.jsonl');
  await writeFile(queryLog, '');
  const db = await openBenchDatabase(workDir);
  const client = new pg.Client({ connectionString: db.url, application_name: 'petstore-bench' });
  let service: Awaited<ReturnType<typeof startProductionService>> | undefined;
  try {
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url };
    await runNode(join(ROOT, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    // The seeding session is the harness's: no statement timeout from the role.
    await client.query('SET statement_timeout = 0');
    const data = await seedBase(client);
    await client.query(
      `INSERT INTO categories (name) SELECT 'explain-category-' || n
       FROM generate_series(1, $1::int - (SELECT count(*)::int FROM categories)) AS n`,
      [CATEGORIES],
    );
    await client.query('VACUUM (ANALYZE) categories');
    await growOrders(client, data.petIds, ORDERS, `orders → ${ORDERS.toLocaleString('en')}`);
    process.stderr.write(`  pets → ${PETS.toLocaleString('en')} …\n`);
    await growPets(client, PETS);
    const tableRows = { orders: ORDERS, categories: CATEGORIES, pets: PETS };
    const { rows: first } = await client.query<{ id: string }>(
      'SELECT min(id) AS id FROM categories',
    );

    service = await startProductionService({
      workDir,
      databaseUrl: db.url,
      apiKey: data.apiKey,
      env: {
        NODE_OPTIONS: `--import=${pathToFileURL(join(import.meta.dirname, 'query-log.js')).href}`,
        BENCH_QUERY_LOG: queryLog,
      },
    });
    const results: Explained[] = [];
    for (const testCase of listCases(data.petIds[0], Number(first[0]?.id))) {
      process.stderr.write(`${testCase.name} …\n`);
      const cursor =
        testCase.after === undefined
          ? undefined
          : await cursorAfter(
              service.baseUrl,
              data.apiKey,
              testCase.path,
              // A smaller table (BENCH_EXPLAIN_ORDERS or _PETS, for a quick look) keeps the last pages.
              Math.min(testCase.after, tableRows[testCase.table] - 10 * PAGE),
            );
      const separator = testCase.path.includes('?') ? '&' : '?';
      const path = `${testCase.path}${separator}limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`;
      await truncate(queryLog);
      const answer = await getJson(service.baseUrl, path, data.apiKey);
      const items = (answer.body as { data?: unknown[] } | null)?.data?.length;
      if (answer.status !== 200 || items === undefined) {
        throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      }
      const logged = (await readFile(queryLog, 'utf8'))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as LoggedQuery);
      const statement = listStatement(logged, testCase);
      const explain = async () => {
        const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
          statement.values,
        );
        return (rows[0]?.['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>)[0];
      };
      await explain(); // the second run is measured: both with the pages in shared buffers
      results.push(
        analyse(testCase, items, statement.text, await explain(), tableRows[testCase.table]),
      );
    }

    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(', ');
    const date = new Date().toISOString().slice(0, 10);
    const failed = results.filter((result) => result.problems.length > 0);
    const lines = [
      `# EXPLAIN of v2's list pages on ${ORDERS.toLocaleString('en')} orders and ${PETS.toLocaleString('en')} pets (${date})`,
      '',
      `PostgreSQL ${db.version} (${db.server}); ${CATEGORIES.toLocaleString('en')} categories; ` +
        `limit=${PAGE} (the service reads ${PAGE + 1}); load average ${load}. Each statement is the one ` +
        'the service sent for a real request (captured by bench/query-log.ts), run again under ' +
        '`EXPLAIN (ANALYZE, BUFFERS)`; the second run is shown (pages cached).',
      '',
      '| case | matches | items | index(es) | plan | rows read | sorted | buffers | exec ms | check |',
      '| --- | --: | --: | --- | --- | --: | --: | --: | --: | --- |',
      ...results.map((r) =>
        [
          '',
          r.case.name,
          r.case.matches,
          String(r.items),
          r.indexes.join(', ') || '—',
          r.shape,
          r.rowsRead.toLocaleString('en'),
          r.sorted === 0 ? '—' : r.sorted.toLocaleString('en'),
          r.buffers.toLocaleString('en'),
          r.executionMs.toFixed(2),
          r.problems.length === 0 ? 'ok' : `✗ ${r.problems.join('; ')}`,
          '',
        ]
          .join(' | ')
          .trim(),
      ),
      '',
      '"rows read": rows of the table its scans returned or filtered out (a keyset page reads about',
      `${PAGE + 1} divided by the share that matches); "sorted": the largest Sort input. A case fails on a`,
      `Seq Scan of the table, or a Sort of more than ${SORT_LIMIT_SHARE * 100} % of it.`,
      '',
      '## Statements',
      '',
      ...results.flatMap((r) => [
        `### ${r.case.name}`,
        '',
        '`GET ' + r.case.path + '`',
        '',
        '```sql',
        r.sql.replace(/\n\s+/g, '\n  ').trim(),
        '```',
        '',
      ]),
    ];
    await saveReport(
      ROOT,
      `explain-${date}`,
      lines,
      (markdown) => markdown.split('\n## Statements')[0],
    );
    if (failed.length > 0) {
      process.stderr.write(
        `${failed.length} case(s) failed: ${failed.map((r) => r.case.name).join(', ')}\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    await service?.stop();
    await client.end().catch(() => undefined);
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

runMain(main);
