// npm run apikey / db:url / migration:run: runs one of the service's command-line tools from
// the compiled code, in about a second, without rebuilding when dist/ is current.
//
//   dist/ current (no source newer than dist/main.js)  runs dist/<tool>
//   dist/ missing                                       builds it (npm run build), then runs it
//   dist/ older than the sources                        builds a private copy in .cache/cli/ and
//                                                       runs that: dist/ may belong to a running
//                                                       `npm start`, and is left alone
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [tool, ...args] = process.argv.slice(2);
if (!tool) {
  process.stderr.write('usage: node scripts/run-cli.mjs <tool.js under dist/> [arguments]\n');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const SOURCES = [
  'src',
  'migrations',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.migrations.json',
];

/** The newest modification time under the sources the build is made from. */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const source of SOURCES) {
    if (existsSync(join(root, source))) visit(join(root, source));
  }
  return newest;
}

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const built = join(root, 'dist', 'main.js');
let dist = join(root, 'dist');
if (!existsSync(built) || !existsSync(join(dist, 'migrations', 'index.js'))) {
  run('npm', ['run', 'build', '--silent']);
} else {
  const sourcesChanged = newestSource();
  if (sourcesChanged > statSync(built).mtimeMs) {
    dist = join(root, '.cache', 'cli', 'dist');
    const copy = join(dist, 'main.js');
    if (!existsSync(copy) || sourcesChanged > statSync(copy).mtimeMs) {
      process.stderr.write('dist/ is older than the sources; building a copy in .cache/cli/\n');
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', dist]);
      run(process.execPath, [
        tsc,
        '-p',
        'tsconfig.migrations.json',
        '--outDir',
        join(dist, 'migrations'),
      ]);
    }
  }
}
const result = spawnSync(process.execPath, [join(dist, tool), ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
