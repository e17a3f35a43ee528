#!/usr/bin/env node
// The `sdp` command. Installed from a registry or a tarball, the package runs its built JavaScript
// (`dist/cli.js`). Inside the sdp repository it runs the TypeScript sources through tsx, as `npm start`
// does: `npx sdp ...` works right after `npm install` in a clone, and never runs a stale build.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function inRepository() {
  try {
    const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    return root.name === 'sdp' && Array.isArray(root.workspaces);
  } catch {
    return false;
  }
}

if (!inRepository()) {
  await import(new URL('../dist/cli.js', import.meta.url).href);
} else {
  const sources = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=@sdp/source', '--import', 'tsx', sources, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    // Ends the way the child ended; without the forwarding listeners, or the signal would only reach them.
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    else process.exit(code ?? 1);
  });
}
