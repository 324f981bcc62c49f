import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { checkpointPatch } from './checkpoint-patch.js';
import { beginExec, captureExec, endExec } from './exec-capture.js';
import { clearScanStateMemo, EXEC_SCAN_ENTRY } from './exec-scan-state.js';
import { SYMLINK_MODE } from './file-capture.js';
import { createCaptureFixture, type CaptureFixture } from './fixtures/capture-fixture.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

/** Files written "an hour ago", so the stat cache trusts them (outside the racy window). */
function seed(root: string, files: Record<string, string | Buffer>): void {
  const past = (Date.now() - 3_600_000) / 1000;
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
    utimesSync(join(root, path), past, past);
  }
}

describe('exec capture', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
  });
  afterEach(() => fx.cleanup());

  it('records create, modify, delete and rename (as delete + create) made by a real child process', async () => {
    const binary = Buffer.from([0, 159, 146, 150, 0, 1]);
    seed(fx.root, { 'keep.txt': 'keep\n', 'edit.txt': 'one\ntwo\n', 'gone.txt': 'bye\n', 'old/name.bin': binary });
    const { capture } = await captureExec(
      fx.context,
      () => bash(fx.root, 'printf "one\\n2\\n" > edit.txt; rm gone.txt; mv old/name.bin new.bin; echo hi > made.txt'),
      { toolName: 'Bash', toolCallId: 'b1', command: 'edit things' },
    );
    const rows = capture.checkpoints.map((row) => [row.op, row.path, row.beforeHash, row.afterHash]);
    expect(rows).toEqual([
      ['delete', 'workspace:gone.txt', hashContent('bye\n'), null],
      ['delete', 'workspace:old/name.bin', hashContent(binary), null],
      ['modify', 'workspace:edit.txt', hashContent('one\ntwo\n'), hashContent('one\n2\n')],
      ['create', 'workspace:made.txt', null, hashContent('hi\n')],
      ['create', 'workspace:new.bin', null, hashContent(binary)],
    ]);
    for (const row of capture.checkpoints) {
      expect(row).toMatchObject({
        source: 'exec',
        toolName: 'Bash',
        toolCallId: 'b1',
        turnId: fx.turnId,
        anchorMessageId: fx.userMessageId,
        status: 'recorded',
      });
      if (row.beforeHash) expect(hashContent(await fx.blobs.get(row.beforeHash))).toBe(row.beforeHash);
      if (row.afterHash) expect(hashContent(await fx.blobs.get(row.afterHash))).toBe(row.afterHash);
    }
    expect(capture.checkpoints.every((row) => row.patch === null)).toBe(true);
    expect(await checkpointPatch(fx.blobs, capture.checkpoints[2]!)).toContain('-two\n+2');
    expect(await checkpointPatch(fx.blobs, capture.checkpoints[1]!)).toBeNull();
    expect(capture.partiallyProtected).toBe(false);
    expect((await fx.store.getTurn(fx.turnId)).metadata).toMatchObject({ execUsed: true });
    expect((await fx.store.getTurn(fx.turnId)).metadata.partiallyProtected).toBeUndefined();
  });

  it('the first scan stores every tracked file; the next reads only what changed', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 40; index++) files[`src/f${index}.ts`] = `export const v${index} = ${index};\n`;
    seed(fx.root, files);
    const first = await beginExec(fx.context);
    expect(first.before.stats.hashed).toBe(40);
    for (const content of Object.values(files)) expect((await fx.blobs.get(hashContent(content))).toString()).toBe(content);
    await endExec(first);
    const context = await fx.nextTurn();
    const second = await beginExec(context);
    expect(second.before.stats).toMatchObject({ hashed: 0, cacheHits: 40 });
    bash(fx.root, 'echo changed > src/f7.ts');
    const result = await endExec(second);
    expect(result.stats.after.hashed).toBe(1);
    expect(result.checkpoints.map((row) => [row.op, row.path, row.turnId])).toEqual([['modify', 'workspace:src/f7.ts', context.turnId]]);
    expect((await fx.blobs.get(result.checkpoints[0]!.beforeHash!)).toString()).toBe(files['src/f7.ts']);
  });

  it('persists the scan state: a new process (reopened store) starts from the stat cache, not from nothing', async () => {
    seed(fx.root, { 'a.txt': 'a', 'b.txt': 'b' });
    await endExec(await beginExec(fx.context));
    await fx.reopen();
    const { openCaptureContext } = await import('./capture-context.js');
    const context = await openCaptureContext({ store: fx.store, blobs: fx.blobs, sessionId: fx.sessionId, turnId: fx.turnId });
    const handle = await beginExec(context);
    expect(handle.state).not.toBeNull();
    expect(handle.before.stats.cacheHits).toBe(2);
    expect((await fx.store.listEntries(fx.sessionId, { type: EXEC_SCAN_ENTRY })).length).toBe(1);
    bash(fx.root, 'rm a.txt');
    const result = await endExec(handle);
    expect(result.checkpoints.map((row) => [row.op, row.path])).toEqual([['delete', 'workspace:a.txt']]);
    expect((await fx.blobs.get(result.checkpoints[0]!.beforeHash!)).toString()).toBe('a');
  });

  it('changes made between commands by someone else are reported as external, not recorded', async () => {
    seed(fx.root, { 'a.txt': 'a' });
    await endExec(await beginExec(fx.context));
    writeFileSync(join(fx.root, 'a.txt'), 'edited by a person');
    const handle = await beginExec(fx.context);
    expect(handle.external?.modified.map((item) => item.path)).toEqual(['workspace:a.txt']);
    const result = await endExec(handle);
    expect(result.checkpoints).toEqual([]);
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
  });

  it('too large files and ignored paths are reported, recorded skipped, and mark the turn partially protected', async () => {
    seed(fx.root, { '.gitignore': 'build/\n', 'big.dat': Buffer.alloc(3000, 1), 'small.txt': 's', 'build/out.js': 'x' });
    const { capture } = await captureExec(fx.context, () => bash(fx.root, 'head -c 4000 /dev/zero > big.dat; echo y > build/out.js; echo z > small.txt'), {
      maxFileSize: 2048,
      command: 'make',
    });
    expect(capture.checkpoints.map((row) => [row.op, row.path, row.status, row.skipReason])).toEqual([
      ['modify', 'workspace:big.dat', 'skipped', 'too_large'],
      ['modify', 'workspace:small.txt', 'recorded', null],
    ]);
    expect(capture.partiallyProtected).toBe(true);
    expect(capture.uncovered.map((item) => [item.path, item.reason])).toEqual([
      ['workspace:big.dat', 'too_large'],
      ['workspace:build', 'ignored'],
    ]);
    const turn = await fx.store.getTurn(fx.turnId);
    expect(turn.metadata).toMatchObject({ execUsed: true, partiallyProtected: true, uncoveredCount: 2 });
    expect(turn.metadata.uncovered).toEqual([
      { path: 'workspace:big.dat', reason: 'too_large', detail: 'larger than maxFileSize (2048 bytes)', command: 'make' },
      { path: 'workspace:build', reason: 'ignored', command: 'make' },
    ]);
  });

  it('an incomplete scan (too many files) infers no deletions or creations, and says so', async () => {
    seed(fx.root, { 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    const { capture } = await captureExec(fx.context, () => bash(fx.root, 'rm a.txt b.txt c.txt; echo n > new.txt'), { maxFiles: 2 });
    expect(capture.checkpoints).toEqual([]);
    expect(capture.uncovered.map((item) => item.reason)).toContain('too_many_files');
    expect((await fx.store.getTurn(fx.turnId)).metadata.partiallyProtected).toBe(true);
  });

  it('a command that fails still has its changes recorded, and its error is rethrown', async () => {
    seed(fx.root, { 'a.txt': 'a' });
    await expect(captureExec(fx.context, () => bash(fx.root, 'echo b > a.txt; exit 3'))).rejects.toThrow();
    const rows = await fx.store.listCheckpoints(fx.sessionId);
    expect(rows.map((row) => [row.op, row.afterHash])).toEqual([['modify', hashContent('b\n')]]);
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('b\n');
  });

  it('amended scan states load cold after GC: every snapshot blob and state is pinned, nothing re-read', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 30; index++) files[`f${index}.txt`] = `content ${index}\n`;
    seed(fx.root, files);
    await endExec(await beginExec(fx.context));
    for (let round = 0; round < 4; round++) {
      await captureExec(fx.context, () => bash(fx.root, `echo round ${round} > f${round}.txt; echo new > n${round}.txt; rm -f f${20 + round}.txt`));
    }
    seed(fx.root, Object.fromEntries(Array.from({ length: 4 }, (_, round) => [`f${round}.txt`, `round ${round}\n`])));
    seed(fx.root, Object.fromEntries(Array.from({ length: 4 }, (_, round) => [`n${round}.txt`, 'new\n'])));
    await endExec(await beginExec(fx.context));
    const report = await fx.blobs.gc();
    expect(report.missingRoots).toEqual([]);
    clearScanStateMemo();
    const handle = await beginExec(fx.context);
    expect(handle.state).not.toBeNull();
    expect(handle.external).toEqual({ created: [], modified: [], deleted: [] });
    expect(handle.before.stats).toMatchObject({ files: 30, hashed: 0 });
    bash(fx.root, 'rm f10.txt');
    const result = await endExec(handle);
    expect(result.checkpoints.map((row) => [row.op, row.path])).toEqual([['delete', 'workspace:f10.txt']]);
    expect((await fx.blobs.get(result.checkpoints[0]!.beforeHash!)).toString()).toBe('content 10\n');
  });

  it('symlinks and mode changes are captured; untracked roots are not scanned', async () => {
    await fx.cleanup();
    fx = await createCaptureFixture({ metadata: (dir) => ({ roots: [{ name: 'logs', dir: join(dir, 'logs'), kind: 'logs' }] }) });
    mkdirSync(join(fx.dir, 'logs'));
    seed(fx.root, { 'run.sh': 'echo hi\n' });
    const { capture } = await captureExec(fx.context, () =>
      bash(fx.root, `chmod 755 run.sh; ln -s run.sh start; echo log >> ${join(fx.dir, 'logs', 'out.log')}`),
    );
    expect(capture.checkpoints.map((row) => [row.op, row.path, row.beforeMode, row.afterMode])).toEqual([
      ['modify', 'workspace:run.sh', 0o644, 0o755],
      ['create', 'workspace:start', null, SYMLINK_MODE | 0o777],
    ]);
    expect((await fx.blobs.get(capture.checkpoints[1]!.afterHash!)).toString()).toBe('run.sh');
    expect(await checkpointPatch(fx.blobs, capture.checkpoints[1]!)).toBeNull();
  });

  it('past the memory budget, files are read again after the scan and stored exactly', async () => {
    seed(fx.root, { 'a.txt': 'alpha\n', 'b.bin': Buffer.from([0, 1, 2, 3]), 'c.txt': 'gamma\n' });
    const { capture } = await captureExec(fx.context, () => bash(fx.root, 'echo changed > a.txt; rm c.txt'), { memoryBudgetBytes: 0 });
    expect(capture.checkpoints.map((row) => [row.op, row.path])).toEqual([
      ['delete', 'workspace:c.txt'],
      ['modify', 'workspace:a.txt'],
    ]);
    expect((await fx.blobs.get(capture.checkpoints[0]!.beforeHash!)).toString()).toBe('gamma\n');
    expect((await fx.blobs.get(capture.checkpoints[1]!.beforeHash!)).toString()).toBe('alpha\n');
    expect((await fx.blobs.get(capture.checkpoints[1]!.afterHash!)).toString()).toBe('changed\n');
    expect((await fx.blobs.get(hashContent(Buffer.from([0, 1, 2, 3])))).equals(Buffer.from([0, 1, 2, 3]))).toBe(true);
  });
});
