import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The shell examples of the documentation and how the docs test runs them (the conventions are
 * in docs/development.md, "Examples in the docs").
 */

/** Fence languages that are commands; every other block (json, js, none) is not. */
const SHELL_LANGUAGES = new Set(['bash', 'sh', 'shell']);

/** `<!-- example: not run (why) -->`, on the line before a shell block. */
const NOT_RUN_MARKER = /^<!--\s*example:\s*not run \(([^)]+)\)\s*-->$/;
const ANY_MARKER = /^<!--\s*example:/;

export interface ShellExample {
  /** `README.md:58`: the file and the line of the opening fence. */
  where: string;
  code: string;
  /** Set when the block is marked not run: the reason the marker gives. */
  notRun?: string;
}

/**
 * The shell blocks of a Markdown file, each with its not-run marker if it has one, and the
 * problems found: a marker that is malformed or not followed by a shell block.
 */
export function shellExamples(
  file: string,
  markdown: string,
): { examples: ShellExample[]; problems: string[] } {
  const lines = markdown.split('\n');
  const examples: ShellExample[] = [];
  const problems: string[] = [];
  let pending: { reason: string; line: number } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    const fence = /^```(\S*)/.exec(line);
    if (fence) {
      const start = index;
      const body: string[] = [];
      for (index++; index < lines.length && lines[index].trim() !== '```'; index++) {
        body.push(lines[index]);
      }
      if (SHELL_LANGUAGES.has(fence[1])) {
        examples.push({
          where: `${file}:${start + 1}`,
          code: body.join('\n'),
          notRun: pending?.reason,
        });
      } else if (pending) {
        problems.push(
          `${file}:${pending.line}: marker before a \`\`\`${fence[1]} block, not a shell one`,
        );
      }
      pending = undefined;
    } else if (ANY_MARKER.test(line)) {
      const marker = NOT_RUN_MARKER.exec(line);
      if (!marker) {
        problems.push(`${file}:${index + 1}: write the marker as <!-- example: not run (why) -->`);
      } else {
        pending = { reason: marker[1].trim(), line: index + 1 };
      }
    } else if (line !== '' && pending) {
      problems.push(`${file}:${pending.line}: marker not followed by a shell block`);
      pending = undefined;
    }
  }
  if (pending) problems.push(`${file}:${pending.line}: marker not followed by a shell block`);
  return { examples, problems };
}

/** The code of a shell line before its comment (a `#` at the start or after a space, unquoted). */
function splitComment(line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '\\') {
      i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      return { code: line.slice(0, i), comment: line.slice(i) };
    }
  }
  return { code: line, comment: '' };
}

/**
 * What each `curl` of a block must answer, in order: the status its command's comment starts
 * with (`# 409 ORDER_ALREADY_SHIPPED`), else `2xx`. A command is a line with the lines it
 * continues (`\` at the end). A status comment belongs to a command with one curl; on a
 * command without curl it is prose.
 */
export function expectedStatuses(code: string): string[] {
  const commands: string[] = [];
  let current = '';
  for (const line of code.split('\n')) {
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
    } else {
      commands.push(current + line);
      current = '';
    }
  }
  if (current) commands.push(current);
  const expected: string[] = [];
  for (const command of commands) {
    const { code: text, comment } = splitComment(command);
    const curls = text.match(/(^|[\s;&|(`])curl(?=\s)/g)?.length ?? 0;
    const status = /^#\s*(\d{3})\b/.exec(comment)?.[1];
    if (status && curls > 1) {
      throw new Error(`a status comment needs exactly one curl in its command: ${command.trim()}`);
    }
    for (let i = 0; i < curls; i++) expected.push(status ?? '2xx');
  }
  return expected;
}

/**
 * Put before every run block: curl is the real one, quiet but for errors, and records the
 * status of each answer (the last status line: the answer after any 1xx) in DOCS_CURL_LOG.
 */
const PRELUDE = `curl() {
  local headers status=0
  headers=$(mktemp)
  command curl --silent --show-error --dump-header "$headers" "$@" || status=$?
  awk '/^HTTP\\//{code=$2} END{print code}' "$headers" >> "$DOCS_CURL_LOG"
  rm -f "$headers"
  return "$status"
}
`;

export interface ExampleRun {
  exitCode: number;
  /** The status of each curl, in the order they ran ('' if none came). */
  statuses: string[];
  stdout: string;
  stderr: string;
}

/**
 * Runs a block with `bash -euo pipefail` in a scratch folder, with only PATH (this Node
 * first), HOME and `env` in its environment; stopped after `timeoutMs`.
 */
export async function runExample(
  code: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<ExampleRun> {
  const dir = await mkdtemp(join(tmpdir(), 'docs-example-'));
  try {
    const script = join(dir, 'example.sh');
    const log = join(dir, 'statuses');
    await writeFile(script, `${PRELUDE}\n${code}\n`);
    await writeFile(log, '');
    const { exitCode, stdout, stderr } = await new Promise<Omit<ExampleRun, 'statuses'>>((done) => {
      execFile(
        'bash',
        ['-euo', 'pipefail', script],
        {
          cwd: dir,
          timeout: timeoutMs,
          env: {
            PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
            HOME: dir,
            ...env,
            DOCS_CURL_LOG: log,
          },
        },
        (error, out, err) => {
          const exit = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          const timedOut = error?.killed ? `\n(stopped after ${timeoutMs} ms)` : '';
          done({ exitCode: exit, stdout: out, stderr: err + timedOut });
        },
      );
    });
    const statuses = (await readFile(log, 'utf8')).split('\n').slice(0, -1);
    return { exitCode, statuses, stdout, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
