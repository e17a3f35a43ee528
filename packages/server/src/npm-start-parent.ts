/**
 * `npm start` runs the server under a shell (`sh -c ...`). Killing npm by its PID ends that shell, which
 * does not pass the signal on, and the server would go on holding the port with no npm left to stop. So
 * a server that `npm start` ran watches its parent: once the shell is gone (its parent process changed),
 * it stops as it does on SIGTERM. Started any other way (a terminal, a supervisor, nohup, a container),
 * it may outlive its parent, as a daemon does.
 */
export function stopWhenNpmStartEnds(env: Record<string, string | undefined>, stop: () => void, everyMs = 500): void {
  if (env.npm_lifecycle_event !== 'start') return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop();
  }, everyMs);
  // The watch alone never keeps the process alive.
  watch.unref();
}
