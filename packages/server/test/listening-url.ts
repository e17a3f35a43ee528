import type { ChildProcess } from 'node:child_process';

/**
 * The URL a server process started by a test says it listens on, and all it wrote so far; rejected with
 * that output if the process exits first.
 */
export async function listeningUrl(child: ChildProcess): Promise<{ url: string; output: () => string }> {
  let out = '';
  const url = await new Promise<string>((ready, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) ready(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { url, output: () => out };
}
