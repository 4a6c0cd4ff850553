// nginx as deploy/nginx/nginx.conf runs it in compose, moved to loopback for the tests that
// run real instances behind it (npm run test:lb, test:soak, test:hostile): the same upstream
// settings, timeouts and failover, with loopback addresses and its files in a scratch folder.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * deploy/nginx/nginx.conf with loopback addresses and its files under `dir`; `failTimeoutS`
 * replaces the file's fail_timeout, left as shipped when undefined.
 */
export function nginxConfig({ dir, nginxPort, ports, failTimeoutS }) {
  let conf = readFileSync(new URL('../deploy/nginx/nginx.conf', import.meta.url), 'utf8');
  const replace = (pattern, replacement, expected = 1) => {
    const count = conf.match(new RegExp(pattern.source, 'gm'))?.length ?? 0;
    if (count !== expected) {
      throw new Error(
        `deploy/nginx/nginx.conf: ${pattern} matched ${count} times, not ${expected}`,
      );
    }
    conf = conf.replace(new RegExp(pattern.source, 'gm'), replacement);
  };
  replace(/^pid .*;$/, `pid ${dir}/nginx.pid;`);
  replace(/^error_log .*;$/, `error_log ${dir}/error.log warn;`);
  replace(
    /^(\s*)access_log \/dev\/stdout petstore;$/,
    `$1access_log ${dir}/access.log petstore;\n` +
      ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((kind) => `$1${kind}_temp_path ${dir}/${kind}_temp;`)
        .join('\n'),
  );
  replace(/^\s*resolver .*;$/, '');
  replace(/^(\s*)server api:3000 /, `$1server 127.0.0.1:${ports[0]} `);
  replace(/^(\s*)server api-2:3000 /, `$1server 127.0.0.1:${ports[1]} `);
  if (failTimeoutS !== undefined) {
    replace(/ fail_timeout=\d+s/, ` fail_timeout=${failTimeoutS}s`, 2);
  }
  replace(/ resolve;$/, ';', 2);
  replace(/^(\s*)listen 8080;$/, `$1listen 127.0.0.1:${nginxPort};`);
  return conf;
}

/**
 * Checks the configuration (nginx -t) and starts nginx in the foreground; resolves once it
 * answers /nginx-health. `track(child)` registers the process for the caller's clean-up.
 */
export async function startNginx({ nginxBin, dir, nginxPort, ports, failTimeoutS, track, say }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/nginx.conf`, nginxConfig({ dir, nginxPort, ports, failTimeoutS }));
  const args = ['-p', dir, '-c', `${dir}/nginx.conf`, '-e', `${dir}/error.log`];
  const check = spawn(nginxBin, [...args, '-t', '-q'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const checked = await new Promise((resolve) => check.on('exit', resolve));
  if (checked !== 0) throw new Error(`nginx -t rejected the configuration (${dir}/nginx.conf)`);
  const log = openSync(`${dir}/stderr.log`, 'a');
  const child = spawn(nginxBin, [...args, '-g', 'daemon off;'], { stdio: ['ignore', log, log] });
  track(child);
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  say(`started nginx (pid ${child.pid}, port ${nginxPort})`);
  for (let i = 0; i < 50; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${nginxPort}/nginx-health`, {
        signal: AbortSignal.timeout(1000),
      });
      await response.arrayBuffer();
      if (response.status === 200) return { child, exited };
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error('nginx did not answer /nginx-health within 5s');
}

/** `count` distinct free loopback ports: all held open until every one is chosen. */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
