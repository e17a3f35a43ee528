/**
 * nginx in front of `sdp serve` processes, run by a test or a benchmark as its own user on loopback:
 * the shipped configuration (packages/server/deploy/nginx/sdp.conf) with only its addresses changed, inside a main
 * configuration that keeps everything (pid, logs, temporary files) in one folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SHIPPED_CONF = join(root, 'packages/server/deploy/nginx/sdp.conf');

/** The nginx binary: on the PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export function findNginx(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  return existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : undefined;
}

export interface RoutingConf {
  /** nginx's own port on 127.0.0.1. */
  port: number;
  /** `host:port` of each `sdp serve` process. */
  backends: string[];
  /** `false`: the same configuration without `hash`, so nginx's default round robin (the comparison). */
  byAccount?: boolean;
}

/**
 * The shipped file with its example addresses replaced: the `server` lines of `upstream sdp` become
 * the given processes (keeping their parameters), and `listen` the given port. Throws when the file no
 * longer has the shape this expects, so a changed configuration cannot leave the test checking another.
 */
export function routingConf(template: string, conf: RoutingConf): string {
  const servers = [...template.matchAll(/^(\s*)server\s+[\w.-]+:\d+((?:\s+[^;\s]+)*)\s*;[^\n]*\n/gm)];
  if (servers.length === 0) throw new Error(`${SHIPPED_CONF}: no \`server HOST:PORT ...;\` lines in upstream sdp`);
  const [first] = servers;
  const lines = conf.backends.map((b) => `${first![1]}server ${b}${first![2]};\n`).join('');
  let out = template.slice(0, first!.index) + lines + template.slice(first!.index! + first![0].length);
  for (const s of servers.slice(1)) out = out.replace(s[0], '');
  const listen = /^(\s*)listen\s+\d+\s*;/m;
  if (!listen.test(out)) throw new Error(`${SHIPPED_CONF}: no \`listen PORT;\` line`);
  out = out.replace(listen, `$1listen 127.0.0.1:${conf.port};`);
  if (conf.byAccount === false) {
    const hash = /^\s*hash \$sdp_account consistent;\s*$/m;
    if (!hash.test(out)) throw new Error(`${SHIPPED_CONF}: no \`hash $sdp_account consistent;\` line`);
    out = out.replace(hash, '');
  }
  return out;
}

/** The main configuration around the shipped one: nothing outside `dir`, nginx in the foreground. */
export function mainConf(dir: string, included: string): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${included};
    access_log ${dir}/routing.log sdp_routing;
}
`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
  });
}

const answers = (port: number): Promise<boolean> =>
  new Promise((r) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), r(true)));
    c.once('error', () => r(false));
  });

export interface RunningNginx {
  child: ChildProcess;
  url: string;
  port: number;
  dir: string;
  /** The routing log's lines so far (`log_format sdp_routing`). */
  log(): RoutedLine[];
  stop(): Promise<void>;
}

export interface RoutedLine {
  at: number;
  status: number;
  account: string;
  /** Every process tried, in order (`$upstream_addr`: one more for each `proxy_next_upstream`). */
  upstreams: string[];
  request: string;
}

/**
 * Starts nginx with the shipped configuration routed to `backends`, in `dir` (which must exist), as this
 * process's user (`-p dir -c conf -e log`), and resolves once its port accepts connections.
 */
export async function startNginx(nginx: string, dir: string, backends: string[], byAccount = true): Promise<RunningNginx> {
  const port = await freePort();
  // Started as root, nginx's workers run as `nobody`: they must reach the temporary folders in `dir`.
  if (process.getuid?.() === 0) chmodSync(dir, 0o755);
  const included = join(dir, 'sdp.conf');
  writeFileSync(included, routingConf(readFileSync(SHIPPED_CONF, 'utf8'), { port, backends, byAccount }));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, mainConf(dir, included));
  const child = spawn(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const errors = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
      throw new Error(`nginx did not start (exit ${child.exitCode}): ${out}${errors}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const logFile = join(dir, 'routing.log');
  return {
    child,
    port,
    dir,
    url: `http://127.0.0.1:${port}`,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map(parseRouted) : []),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One line of `log_format sdp_routing`. */
export function parseRouted(line: string): RoutedLine {
  const m = /^(\S+) (\d+) "([^"]*)" (.*?) "([^"]*)" (\S+) "([^"]*)"$/.exec(line);
  if (!m) throw new Error(`not a routing log line: ${line}`);
  return {
    at: Number(m[1]) * 1000,
    status: Number(m[2]),
    account: m[3]!,
    upstreams: m[4]!.split(/[,:]\s+/).filter((u) => u !== '-' && u.length > 0),
    request: m[7]!,
  };
}
