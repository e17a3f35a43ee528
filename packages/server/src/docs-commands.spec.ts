import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { curl, shellWords } from '../test/curl-command.ts';
import { pushExampleServerCommand, runPushExample } from '../test/push-walkthrough.ts';
import { runStreamCommandLine } from '../test/stream-walkthrough.ts';

/**
 * Every command line the docs print, run as printed in a clone: the lines of each ```sh, ```bash and
 * ```shell block of README.md, docs/*.md and packages/*\/README.md, and each `$ ` line of their other
 * blocks (sample sessions); then the commands `sdp serve` itself prints. A new printed command is run
 * without editing this file; a command that cannot run here is listed in EXCLUDED with its reason, and an
 * exclusion that no longer matches a printed line fails the test.
 *
 * Each block runs on its own, in one clone; then the pages run again in the order a newcomer reads them
 * (README.md, then the pages in the order the pages before them link them) on a second clone, one state
 * for all of them: a page that only works on a fresh machine fails there.
 *
 * A clone is a scratch directory of links to this checkout's files, so what commands write (`./data/`,
 * `fixtures/`) lands there and never in the checkout. Servers get `SDP_PORT=0` and `SDP_ACCESS_LOG=off`
 * in their environment (the printed `8080` may be taken); their lines are otherwise unchanged.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Printed {
  where: string;
  /** Lines of one block, in order (a server a block starts stays up for its later lines), each with its comment. */
  lines: { command: string; note: string }[];
}

/** Commands that do not run here, each with why; the pattern must match a printed line. */
const EXCLUDED: { pattern: RegExp; reason: string }[] = [
  { pattern: /^npm install$/, reason: 'installs the clone this test runs in (CI\'s `npm ci`); it must not change the shared node_modules' },
  { pattern: /^npm test$|^npm run test:e2e$/, reason: 'the suites this test belongs to' },
  { pattern: /^SDP_DOC_IMAGES=1 npx vitest run /, reason: 'redraws docs/images from console.browser.spec.ts, which `npm run test:e2e` runs' },
  { pattern: /^npm install (-D )?((\/path\/to\/sdp\/packed\/\S+\.tgz ?)+|fast-check @fast-check\/vitest vitest)$/, reason: 'installs into a blank project: the consumer suite (consumer/project/docs-commands.mjs) runs it there' },
  { pattern: /127\.0\.0\.1:8080\/(_admin|v1\.5)\//, reason: 'the worked example of docs/push.md and the stream lines of README.md and docs/stream.md: push-example.e2e.spec.ts and stream-doc-example.e2e.spec.ts run them against a server, the ports and the demo key substituted, each shown answer checked' },
  { pattern: /^HASH=|^SOURCE=|^ID=/, reason: 'the same examples (push-example.e2e.spec.ts, stream-doc-example.e2e.spec.ts), as above' },
  { pattern: /^(podman|docker) |^SDP_BASE_IMAGE=/, reason: 'docs/server.md\'s container lines need a container runtime and a Debian base image to pull, which a test machine may lack (its curl lines to 127.0.0.1:8080 fall under the pattern above): container-entry.e2e.spec.ts runs entry.sh as the image does and sends the curl line it prints, and container-image.e2e.spec.ts runs the image .ci/container.sh builds in CI' },
  { pattern: /^curl -N |^kill %1$/, reason: 'a stream, open until stopped, and its stop: stream-doc-example.e2e.spec.ts reads it as the lines around it run' },
];

/** Substitutions in printed lines, each with why: placeholders, and a fixed path outside the clone. */
const SUBSTITUTED: { from: string | RegExp; to: (ctx: { port?: string; scratch: string }) => string; reason: string }[] = [
  { from: 'PORT', to: (c) => c.port ?? 'PORT', reason: 'the placeholder for the port the server printed (started with --port 0)' },
  { from: 'sqlite:/tmp/run.db', to: (c) => `sqlite:${join(c.scratch, 'run.db')}`, reason: 'a fixed path outside the clone: runs side by side would share it, and an import needs an empty store' },
  { from: /\bNAME\b/g, to: () => 'newcomer', reason: 'the placeholder for an account name' },
];

function printedCommands(): Printed[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const p of readdirSync(join(root, 'packages'))) {
    try {
      readFileSync(join(root, 'packages', p, 'README.md'));
      files.push(`packages/${p}/README.md`);
    } catch {
      // a package without a README prints nothing
    }
  }
  const out: Printed[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^```([\w-]*)[^\n]*\n([\s\S]*?)^```/gm)) {
      const lang = m[1]!;
      const where = `${file}:${text.slice(0, m.index).split('\n').length}`;
      const body = m[2]!.replace(/\\\n\s*/g, '');
      let raw: string[];
      if (['sh', 'bash', 'shell'].includes(lang)) raw = body.split('\n');
      else raw = body.split('\n').filter((l) => l.startsWith('$ ')).map((l) => l.slice(2));
      // A comment after the command (two spaces, #) says what it does or what it answers.
      const lines = raw
        .map((l) => ({ command: l.replace(/\s+#.*$/, '').trim(), note: /\s#(.*)$/.exec(l)?.[1]?.trim() ?? '' }))
        .filter((l) => l.command && !l.command.startsWith('#'));
      if (lines.length > 0) out.push({ where, lines });
    }
  }
  return out;
}

/** The commands of a line: `a && b` runs a, then b. */
const partsOf = (line: string): string[] => line.split(' && ').map((p) => p.trim());

/**
 * The pages in the order a newcomer meets them: README.md, then each page the first time a page read
 * before it links it, then the packages' READMEs. docs/portable-state.md reads the store the pages before it filled, the stream's
 * among them, so it comes after docs/stream.md whatever the links say.
 */
function readingOrder(): string[] {
  const order = ['README.md'];
  for (let i = 0; i < order.length; i++) {
    const file = order[i]!;
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\]\(((?:docs\/)?[\w-]+\.md)(?:#[^)]*)?\)/g)) {
      const page = file === 'README.md' ? m[1]! : m[1]!.startsWith('docs/') ? m[1]! : `docs/${m[1]!}`;
      if (!page.startsWith('docs/') || order.includes(page)) continue;
      try {
        readFileSync(join(root, page));
        order.push(page);
      } catch {
        // a link to a page that does not exist is the link checker's business, not this test's
      }
    }
  }
  // A package's README is read by whoever opens that package, after the pages: last, in the folders' order.
  for (const p of readdirSync(join(root, 'packages'))) {
    try {
      readFileSync(join(root, 'packages', p, 'README.md'));
      order.push(`packages/${p}/README.md`);
    } catch {
      // a package without a README prints nothing
    }
  }
  const late = order.indexOf('docs/portable-state.md');
  if (late >= 0 && order.includes('docs/stream.md')) {
    order.splice(late, 1);
    order.splice(order.indexOf('docs/stream.md') + 1, 0, 'docs/portable-state.md');
  }
  return order;
}

/** A clone: links to this checkout's files, without its state (`data/`, `fixtures/`) or its outputs. */
function newClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sdp-docs-commands-'));
  for (const entry of readdirSync(root)) {
    if (['.git', 'data', 'fixtures', 'packed', 'reports'].includes(entry)) continue;
    symlinkSync(join(root, entry), join(dir, entry));
  }
  return dir;
}
const scratch = newClone();
const sequenceClone = newClone();
const servers: ChildProcess[] = [];
/** Whether any process of a server's process group is left. */
function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}
afterAll(() => {
  for (const s of servers) if (groupAlive(s)) process.kill(-s.pid!, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
  rmSync(sequenceClone, { recursive: true, force: true });
});

const env: Record<string, string | undefined> = { ...process.env, SDP_PORT: '0', SDP_ACCESS_LOG: 'off', npm_config_loglevel: 'error' };
// A newcomer's shell: no store named, and none of the source condition vitest gives its own children.
delete env.SDP_STORE;
delete env.NODE_OPTIONS;

const substitute = (line: string, port?: string, clone = scratch): string => {
  let out = line;
  for (const s of SUBSTITUTED) out = typeof s.from === 'string' ? out.replaceAll(s.from, s.to({ port, scratch: clone })) : out.replace(s.from, s.to({ port, scratch: clone }));
  return out;
};

/** A server command: started, its output read up to `listening on URL`, the port answered. */
const startsServer = (command: string): boolean => /^(npm start|npx sdp serve(?! --help))/.test(command);

async function startServerCommand(command: string, clone = scratch): Promise<{ child: ChildProcess; out: () => string; url: string }> {
  // A process group of its own, as a terminal gives a command: Ctrl-C (SIGINT) goes to all of it.
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  servers.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(timer);
        ok(m[1]!);
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(timer);
      fail(new Error(`${command} exited ${code} before listening:\n${out}`));
    });
  });
  return { child, out: () => out, url };
}

/** Ctrl-C, as a newcomer stops a server: every process it started must be gone within ten seconds. */
async function stop(child: ChildProcess): Promise<void> {
  if (groupAlive(child)) process.kill(-child.pid!, 'SIGINT');
  for (let waited = 0; groupAlive(child) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  expect(groupAlive(child), 'a process of the server outlived Ctrl-C').toBe(false);
}

function runCommand(command: string, clone = scratch): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-c', command], { cwd: clone, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The runnable lines of a block, in order: the printed lines less the excluded ones. */
const runnableOf = (block: Printed) =>
  block.lines.flatMap((l) => partsOf(l.command).map((command) => ({ command, note: l.note }))).filter((c) => !EXCLUDED.some((e) => e.pattern.test(c.command)));

/** Runs a block's lines in a clone; a server one starts stays up for the later lines, then stops. */
async function runBlock(runnable: { command: string; note: string }[], clone: string, heard: (output: string) => void = () => {}): Promise<void> {
  let server: Awaited<ReturnType<typeof startServerCommand>> | undefined;
  try {
    for (const { command, note } of runnable) {
      const line = substitute(command, server ? new URL(server.url).port : undefined, clone);
      if (startsServer(line)) {
        if (server) {
          await stop(server.child);
          heard(server.out());
        }
        server = await startServerCommand(line, clone);
        // The first line a newcomer sees names the store, after npm's own lines for `npm start` and, in a
        // fresh clone with nothing built yet, the one that says the first start builds.
        const first = server
          .out()
          .split('\n')
          .find((l) => l.trim() !== '' && !l.startsWith('> ') && !l.startsWith('first start: building'));
        expect(first, `${line}\n${server.out()}`).toMatch(/^store: /);
        continue;
      }
      if (line.startsWith('curl ')) {
        const answer = await curl(shellWords(line.replace('http://127.0.0.1:8080', server?.url ?? 'http://127.0.0.1:8080')));
        // A comment that starts with a status is the status it answers.
        const shown = /^(\d{3})\b/.exec(note);
        expect(answer.status, `${line}: ${await answer.clone().text()}`).toBeLessThan(500);
        if (shown) expect(answer.status, line).toBe(Number(shown[1]));
        continue;
      }
      const r = runCommand(line, clone);
      heard(r.out);
      expect(r.status, `${line}\n${r.out}`).toBe(0);
      // What the install lines after it name: a tarball of every package in the clone's packed/.
      if (line === 'npm run pack') {
        const packed = readdirSync(join(clone, 'packed')).map((f) => f.replace(/-\d+\.\d+\.\d+\.tgz$/, ''));
        expect(packed.sort()).toEqual(readdirSync(join(root, 'packages')).map((p) => `sdp-${p}`).sort());
      }
    }
  } finally {
    if (server) {
      await stop(server.child);
      heard(server.out());
    }
  }
}

describe('every command the docs print, run as printed in a clone', () => {
  const printed = printedCommands();
  const commands = printed.flatMap((p) => p.lines.flatMap((l) => partsOf(l.command)));

  it('finds the printed commands, and every exclusion still names one', () => {
    expect(commands).toContain('npm start');
    expect(commands.some((c) => c.startsWith('npx sdp export'))).toBe(true);
    for (const e of EXCLUDED) expect(commands.some((c) => e.pattern.test(c)), `${e.pattern} (${e.reason}) matches no printed command`).toBe(true);
  });

  for (const block of printed) {
    const runnable = runnableOf(block);
    if (runnable.length === 0) continue;
    it(`${block.where}: ${runnable.map((c) => c.command).join(' ; ')}`, async () => {
      await runBlock(runnable, scratch);
      // `npm start` builds the packages first when they are not built (about a minute, more on a busy machine).
    }, 400_000);
  }

  it('the commands `sdp serve` prints on a later start run as printed: `npx sdp accounts create NAME` and `rotate-key`', async () => {
    const store = `sqlite:./data/printed.db`;
    const first = await startServerCommand(`npx sdp serve --store ${store}`);
    expect(first.out()).toMatch(/demo account created/);
    await stop(first.child);
    const later = await startServerCommand(`npx sdp serve --store ${store}`);
    await stop(later.child);
    const hint = /a working key: (.*?)\s+\(or: (.*?)\)\s*$/m.exec(later.out());
    expect(hint, later.out()).not.toBeNull();
    for (const printedLine of [hint![1]!, hint![2]!]) {
      const r = runCommand(substitute(printedLine));
      expect(r.status, `${printedLine}\n${r.out}`).toBe(0);
      expect(r.out).toMatch(/API key \S+/);
      // The curl line it prints reaches the server that printed the hint, not the default port.
      expect(r.out).toContain(`http://127.0.0.1:${new URL(later.url).port}/`);
    }
  }, 180_000);
});

/** Pages that do not yet run after the ones before them, each with why; remove an entry once it runs. */
const NOT_YET_IN_SEQUENCE: Record<string, string> = {};

describe('the docs in the order a newcomer reads them, on one state', () => {
  const printed = printedCommands();
  const order = readingOrder();

  it('reads README.md first and reaches every page that prints a command', () => {
    expect(order[0]).toBe('README.md');
    for (const block of printed) if (runnableOf(block).length > 0) expect(order, block.where).toContain(block.where.slice(0, block.where.lastIndexOf(':')));
    expect(order.indexOf('docs/portable-state.md')).toBe(order.indexOf('docs/stream.md') + 1);
  });

  // The demo key as the newcomer last saw it printed: by the first start, or by `accounts rotate-key demo`.
  let demoKey: string | undefined;
  const heard = (output: string) => {
    for (const m of output.matchAll(/(?:demo account created|key replaced): username demo, API key (\S+)/g)) demoKey = m[1];
  };

  for (const page of order) {
    const blocks = printed.filter((b) => b.where.startsWith(`${page}:`) && runnableOf(b).length > 0);
    const walkthrough = page === 'docs/push.md' || page === 'docs/stream.md';
    if (blocks.length === 0 && !walkthrough) continue;
    const run = async () => {
      for (const block of blocks) await runBlock(runnableOf(block), sequenceClone, heard);
      if (page === 'docs/stream.md') {
        // "With `npm start` running and the demo key it printed": the server on the clone's default store.
        expect(demoKey, 'the demo key a page before printed').toBeDefined();
        const server = await startServerCommand('npm start', sequenceClone);
        try {
          await runStreamCommandLine(root, server.url, demoKey!);
        } finally {
          await stop(server.child);
        }
      }
      if (page === 'docs/push.md') {
        // The worked example's server, as the page says to start it, in the clone the pages before it used.
        const server = await startServerCommand(pushExampleServerCommand(root), sequenceClone);
        try {
          await runPushExample(root, server.url);
        } finally {
          await stop(server.child);
        }
      }
    };
    const why = NOT_YET_IN_SEQUENCE[page];
    if (why) it.skip(`${page} (not yet: ${why})`, run);
    else it(`${page}, after the pages before it`, run, 400_000);
  }
});
