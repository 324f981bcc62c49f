import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeptFiles, removeAbandonedKeptFiles } from './kept-files.js';
import { Workspace } from './workspace.js';

const child = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'kept-files-child.ts');

/** Runs the fixture and resolves once it has kept its file; `wait`: it stays until killed. */
function keeper(root: string, work: string, mode: 'exit' | 'wait') {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, root, work, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const kept = new Promise<void>((resolve, reject) => {
    process_.stdout!.once('data', () => resolve());
    process_.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`keeper exited ${code}`))));
  });
  const exited = new Promise<void>((resolve) => process_.once('exit', () => resolve()));
  return { process: process_, kept, exited };
}

describe('KeptFiles', () => {
  let dir: string;
  let work: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-kept-unit-'));
    work = join(dir, 'work');
    mkdirSync(work);
    root = join(dir, 'w.db.kept');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function taken(name: string, content: string) {
    const path = join(work, name);
    writeFileSync(path, content);
    return { path, stats: lstatSync(path, { bigint: true }) };
  }

  it("a process's kept files go when it exits; a SIGKILLed process's, when the next process keeps one", async () => {
    const exiting = keeper(root, work, 'exit');
    await exiting.kept;
    await exiting.exited;
    expect(readdirSync(root)).toEqual([]);

    const killed = keeper(root, work, 'wait');
    await killed.kept;
    expect(readdirSync(root)).toHaveLength(1);
    killed.process.kill('SIGKILL');
    await killed.exited;
    expect(readdirSync(root)).toHaveLength(1);
    // gc removes it (`removeAbandonedKeptFiles`) …
    removeAbandonedKeptFiles(root.slice(0, -'.kept'.length));
    expect(readdirSync(root)).toEqual([]);
    // … and so does the next process to keep a file.
    const killedAgain = keeper(root, work, 'wait');
    await killedAgain.kept;
    killedAgain.process.kill('SIGKILL');
    await killedAgain.exited;
    expect(readdirSync(root)).toHaveLength(1);
    const file = taken('.b.txt.00000000000b.wp-old', 'b\n');
    const kept = new KeptFiles(root);
    expect(kept.keep(file.path, 'e'.repeat(64), file.stats, work)).toBe(true);
    // Only this process's directory is left: the killed one's (its contents are in the store) is gone.
    expect(readdirSync(root)).toEqual([expect.stringMatching(new RegExp(`^${process.pid}\\.`))]);
    kept.clear();
    expect(readdirSync(root)).toEqual([]);
  }, 30_000);

  it('a running process keeps its directory while another process keeps files beside it', async () => {
    const running = keeper(root, work, 'wait');
    try {
      await running.kept;
      const file = taken('.c.txt.00000000000c.wp-old', 'c\n');
      const kept = new KeptFiles(root);
      expect(kept.keep(file.path, 'd'.repeat(64), file.stats, work)).toBe(true);
      expect(readdirSync(root)).toHaveLength(2);
      removeAbandonedKeptFiles(root.slice(0, -'.kept'.length));
      expect(readdirSync(root)).toHaveLength(2);
      kept.clear();
    } finally {
      running.process.kill('SIGKILL');
      await running.exited;
    }
  }, 30_000);

  it('keeps at most its limits, the oldest out first; a file taken and given back counts once', () => {
    const kept = new KeptFiles(root, { files: 3, bytes: 1000 });
    const files = Array.from({ length: 5 }, (_, index) => taken(`.f${index}.txt.00000000000${index}.wp-old`, `content ${index}\n`));
    for (const [index, file] of files.entries()) expect(kept.keep(file.path, String(index).repeat(64), file.stats, work)).toBe(true);
    expect(kept.size).toBe(3);
    const ownDir = join(root, readdirSync(root)[0]!);
    expect(readdirSync(ownDir)).toHaveLength(3);
    expect(kept.keptBytes).toBe(3 * 'content 0\n'.length);
    // Many rounds of taking a file and giving it back leave the count and bytes as they were.
    const { resolved, entry } = new Workspace({ roots: [{ name: 'workspace', dir: work, kind: 'workspace' }] }).resolveKeyEntry('workspace:x.txt', {
      followLink: false,
    });
    for (let round = 0; round < 50; round++) {
      const write = kept.take(resolved, '4'.repeat(64), 0o644, true, entry);
      expect(write).not.toBeNull();
      write!.abort();
    }
    expect(kept.size).toBe(3);
    expect(kept.keptBytes).toBe(3 * 'content 0\n'.length);
    // Taken for good: linked into place, it no longer counts.
    expect(kept.take(resolved, '4'.repeat(64), 0o644, true, entry)!.commitIfAbsent({ syncDirectory: false })).not.toBeNull();
    expect(readFileSync(join(work, 'x.txt'), 'utf8')).toBe('content 4\n');
    expect(kept.size).toBe(2);
    expect(kept.keptBytes).toBe(2 * 'content 0\n'.length);
    // A file larger than the byte limit pushes out the others.
    const large = taken('.large.bin.00000000000f.wp-old', 'x'.repeat(995));
    kept.keep(large.path, 'f'.repeat(64), large.stats, work);
    expect(kept.size).toBe(1);
    expect(kept.keptBytes).toBe(995);
    expect(readdirSync(ownDir)).toHaveLength(1);
    kept.clear();
  });

  it('keeps nothing across file systems, nor a file that changed since it was known: the caller removes those as before', () => {
    const elsewhere = mkdtempSync('/dev/shm/waypoint-kept-');
    try {
      if (lstatSync(elsewhere).dev === lstatSync(work).dev) return; // one file system here: nothing to show
      const file = taken('.d.txt.00000000000d.wp-old', 'd\n');
      expect(new KeptFiles(join(elsewhere, 'w.db.kept')).keep(file.path, 'a'.repeat(64), file.stats, work)).toBe(false);
      expect(existsSync(file.path)).toBe(true);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    const changed = taken('.e.txt.00000000000e.wp-old', 'e\n');
    writeFileSync(changed.path, 'e, written again\n');
    const kept = new KeptFiles(root);
    // Handled (true), not kept: the file is removed, as it would have been.
    expect(kept.keep(changed.path, 'b'.repeat(64), changed.stats, work)).toBe(true);
    expect(kept.size).toBe(0);
    expect(existsSync(changed.path)).toBe(false);
    kept.clear();
  });
});
