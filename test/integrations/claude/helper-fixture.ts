import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProject } from './project-fixture.js';

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolvePromise) => (child.exitCode !== null ? resolvePromise(child.exitCode) : child.on('close', resolvePromise)));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A project for the hook clients' real-process tests: `node` is a wrapper that counts its starts
 * (so a test sees when an event went to the helper from bash alone and when to the Node client),
 * `endpoint` and `lock` are where the store's helper announces itself, and `cleanup` removes the
 * project and waits until the helper, which stops once its store is gone, has stopped.
 */
export function helperProject(files: Record<string, string>) {
  const fixture = createProject(files);
  const starts = join(fixture.dir, 'node-starts');
  const node = join(fixture.dir, 'node-wrapper.sh');
  writeFileSync(node, `#!/bin/sh\necho start >> '${starts}'\nexec '${process.execPath}' "$@"\n`);
  chmodSync(node, 0o755);
  const lock = join(fixture.home, '.waypoint', 'claude-hooks', 'helper.lock');
  return {
    fixture,
    node,
    endpoint: join(fixture.home, '.waypoint', 'claude-hooks', 'helper.port'),
    lock,
    nodeStarts: () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0),
    async cleanup(): Promise<void> {
      const pid = existsSync(join(lock, 'pid')) ? Number(readFileSync(join(lock, 'pid'), 'utf8')) : 0;
      fixture.cleanup();
      for (let wait = 0; wait < 100 && pid > 0 && alive(pid); wait++) await sleep(100);
    },
  };
}
