import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCurl } from '../test/curl-command.ts';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-newcomer-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `sdp serve` as `npm start` does, from the sources (`npm start` runs the same code built; a build
 * here would be a minute on a cold checkout), on a free port and a fresh SQLite file, and collects its output.
 */
function start(port = 0, file = 'sdp.db', extra: string[] = []): { child: ChildProcess; output: () => string; ready: Promise<string> } {
  // node itself rather than the tsx wrapper: a signal (SIGKILL included) then reaches the server, not a parent that would leave it running.
  const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', String(port), '--store', `sqlite:${join(dir, file)}`, ...extra], {
    cwd: root,
    env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_ADMIN_TOKEN: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out)) resolveReady(out);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { child, output: () => out, ready };
}

/** Runs the CLI to its end and returns what it printed. */
async function sdp(argv: string[]): Promise<string> {
  const { stdout } = await run(join(root, 'node_modules/.bin/tsx'), ['packages/server/src/cli.ts', ...argv], { cwd: root, encoding: 'utf8' });
  return stdout;
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('exit', (code) => r(code))));

describe("a newcomer's first start", () => {
  it('prints a demo account and a curl line that answers 200, stops cleanly, and keeps the account', async () => {
    const first = start();
    const out = await first.ready;
    const user = /username (\S+), API key ([0-9a-f]{32})/.exec(out);
    expect(user, out).not.toBeNull();
    const curl = out.split('\n').find((l) => l.trim().startsWith('curl '));
    expect(curl, out).toBeDefined();
    const r = await runCurl(curl!);
    const text = await r.text();
    expect(r.status, text).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(JSON.parse(text)).toBeTypeOf('object');

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);

    // A second start over the same file finds the account and prints no new key.
    const second = start();
    const out2 = await second.ready;
    expect(out2).not.toMatch(/demo account created/);
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out2)![1];
    const again = await runCurl(curl!.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`));
    expect(again.status).toBe(200);

    // After the first start the demo key is gone from the screen: the accounts command gives working ones,
    // and the line printed runs as printed from the clone (npx finds the sdp bin without a build).
    const hint = /a working key: (npx sdp accounts create NAME[^\n]*?)\s+\(or:/.exec(out2);
    expect(hint, out2).not.toBeNull();
    const { stdout: made } = await run('sh', ['-c', hint![1]!.replace('NAME', 'printed')], { cwd: root, encoding: 'utf8' });
    expect(made).toMatch(/account created: username printed, API key [0-9a-f]{32}/);
    // The hint carries this server's port, so the curl line the command prints reaches it.
    expect(made).toContain(`http://127.0.0.1:${port}/v1.5/`);
    const store = ['--store', `sqlite:${join(dir, 'sdp.db')}`, '--port', port!];
    for (const argv of [['accounts', 'create', 'acme', ...store], ['accounts', 'rotate-key', 'demo', ...store]]) {
      const printed = await sdp(argv);
      const line = printed.split('\n').find((l) => l.trim().startsWith('curl '));
      expect(line, printed).toBeDefined();
      expect((await runCurl(line!)).status, printed).toBe(200);
    }
    expect((await runCurl(curl!.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`))).status, 'the replaced key').toBe(401);
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  }, 60_000);

  it('with an admin token, prints a console link that carries the token in its fragment', async () => {
    const server = start(0, 'console.db', ['--admin-token', 'a token/&=']);
    const out = await server.ready;
    for (let waited = 0; !server.output().includes('console: ') && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (\S+)/.exec(out)![1]!;
    const link = /^console: (\S+)$/m.exec(server.output())?.[1];
    expect(link, server.output()).toBe(`${url}/_console/#token=a%20token%2F%26%3D`);
    // The fragment stays in the browser: the page itself is what the link fetches.
    expect((await fetch(link!)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
  }, 60_000);

  it("under npm start's shell, stops once that shell is killed (kill with npm's PID), and frees the port", async () => {
    // As npm runs a start script: `sh -c` with npm's lifecycle variables; `& wait` keeps the shell the parent, as npm's does.
    const serve = `'${process.execPath}' --conditions=@sdp/source --import tsx packages/server/src/cli.ts serve --port 0 --store memory: --access-log off`;
    const shell = spawn('sh', ['-c', `${serve} & echo "server pid $!"; wait`], {
      cwd: root,
      env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_ADMIN_TOKEN: undefined, npm_lifecycle_event: 'start' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(shell);
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    shell.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    for (let waited = 0; !/listening on http/.test(out) && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (\S+)/.exec(out)?.[1];
    const pid = Number(/server pid (\d+)/.exec(out)?.[1]);
    expect(url, out).toBeDefined();
    expect((await fetch(`${url}/_health`)).status).toBe(200);
    // npm passes SIGTERM to its shell, which ends without passing it on: the server's parent is gone.
    shell.kill('SIGTERM');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let waited = 0; alive() && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL');
    expect(out).toContain('npm start ended: finishing in-flight requests, then closing the store');
    await expect(fetch(`${url}/_health`)).rejects.toThrow();
  }, 60_000);

  it('a first start that fails (its port busy) says which port and how to choose another, creates nothing: the next start is the first, and shows the demo key', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      const failed = start(port, 'busy.db');
      await expect(failed.ready).rejects.toThrow(/server exited with 2/);
      // One line naming the port and the way to another, no stack.
      expect(failed.output()).toBe(`sdp serve: port ${port} on 127.0.0.1 is already in use (another sdp serve still running?); choose another with --port N or SDP_PORT=N (0: any free port)\n`);
    } finally {
      busy.close();
    }
    const next = start(0, 'busy.db');
    const out = await next.ready;
    expect(out).toMatch(/username demo, API key [0-9a-f]{32}/);
    next.child.kill('SIGTERM');
    expect(await exited(next.child)).toBe(0);
  }, 60_000);

  it('the CLI refuses an account in a memory store (it would vanish with its key) and a name taken, says what --port means there, and ends quietly when its reader closes the pipe', async () => {
    await expect(sdp(['accounts', 'create', 'bob', '--store', 'memory:'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--store memory: keeps nothing after this command/) });
    expect(await sdp(['accounts', '--help'])).toMatch(/--port PORT\n\s+the port of the server that serves the account/);
    // A name opened before (a page's alice, a second try) is said plainly, with the way to a working key.
    const store = ['--store', `sqlite:${join(dir, 'twice.db')}`];
    expect(await sdp(['accounts', 'create', 'alice', ...store])).toMatch(/another port: add --port N/);
    await expect(sdp(['accounts', 'create', 'alice', ...store])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/An account named alice already exists in sqlite:.*twice\.db; for a working key of it: npx sdp accounts rotate-key alice --store 'sqlite:/),
    });
    expect(await sdp(['accounts', 'rotate-key', 'alice', ...store, '--port', '9191'])).toMatch(/^try it \(with sdp serve on http:\/\/127\.0\.0\.1:9191\):\n.*127\.0\.0\.1:9191\/v1\.5\//m);
    // `sdp openapi | head -c 50`: the reader leaves after 50 bytes.
    const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', 'packages/server/src/cli.ts', 'openapi'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((r) => child.stdout!.once('data', () => r()));
    child.stdout!.destroy();
    expect(await exited(child)).toBe(0);
    expect(err).toBe('');
  }, 60_000);

  it('finds help for every command and flag, and the version', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string };
    expect((await sdp(['--version'])).trim()).toBe(pkg.version);
    const help = (await sdp(['--help']));
    for (const name of ['serve', 'accounts', 'sim']) expect(help).toContain(`sdp ${name}`);
    for (const doc of help.match(/docs\/[a-z-]+\.md/g)!) expect(existsSync(join(root, doc)), doc).toBe(true);
    const serveHelp = (await sdp(['serve', '--help']));
    // docs/ is not in the installed package; its README is (npm always packs it), so the help names that too.
    for (const text of [help, serveHelp]) expect(text).toContain('installed, node_modules/@sdp/server/README.md');
    expect(existsSync(join(root, 'packages/server/README.md'))).toBe(true);
    const { SERVE_SETTINGS, defaultSettings } = await import('./settings.ts');
    for (const s of SERVE_SETTINGS) {
      expect(serveHelp).toContain(`--${s.flag} ${s.format}`);
      expect(serveHelp).toContain(`default ${s.shown(defaultSettings())}; env ${s.env}`);
    }
  }, 30_000);
});
