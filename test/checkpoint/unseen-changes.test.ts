import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureExec } from '../../src/checkpoint/index.js';
import { createCaptureFixture, type CaptureFixture } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { WaypointError } from '../../src/model/index.js';
import { FileRewinder } from '../../src/rewind/index.js';
import { scanWorkspace, Workspace } from '../../src/workspace/index.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });
/** A path whose last name is `bytes` (not valid UTF-8), as the kernel sees it. */
const raw = (dir: string, bytes: number[]) => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(bytes)]);

describe('changes a scan sees but cannot keep are recorded or reported, never lost', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
  });
  afterEach(() => fx.cleanup());

  it('the scanner reports names that are not valid UTF-8 (escaped) and still tracks valid names that hold U+FFFD', () => {
    writeFileSync(raw(fx.root, [0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]), 'latin-1 name\n'); // "caf\xe9.txt"
    writeFileSync(join(fx.root, 'caf\uFFFD.txt'), 'a real replacement character\n');
    mkdirSync(raw(fx.root, [0xff, 0x64]));
    writeFileSync(Buffer.concat([raw(fx.root, [0xff, 0x64]), Buffer.from('/inner.txt')]), 'inside\n');
    const workspace = new Workspace({ roots: [{ name: 'workspace', dir: fx.root, kind: 'workspace' }] });
    const scan = scanWorkspace(workspace);
    expect([...scan.snapshot.keys()]).toEqual(['workspace:caf\uFFFD.txt']);
    expect(scan.skipped.map((item) => [item.path, item.reason])).toEqual(
      expect.arrayContaining([
        ['workspace:caf\\xe9.txt', 'invalid_name'],
        ['workspace:\\xffd', 'invalid_name'],
      ]),
    );
  });

  it('a shell command that deletes and creates files with invalid UTF-8 names: skipped checkpoints, uncovered, the turn partially protected, and a cascade reports them instead of succeeding', async () => {
    writeFileSync(join(fx.root, 'tracked.txt'), 'v1\n');
    writeFileSync(raw(fx.root, [0x6f, 0x6c, 0x64, 0xe9]), 'old bytes\n'); // "old\xe9"
    const { capture } = await captureExec(
      fx.context,
      () => bash(fx.root, `rm -f $'old\\xe9'; printf new > $'new\\xff.bin'; mkdir $'dir\\xfe'; echo in > $'dir\\xfe/file'; echo v2 > tracked.txt`),
      { command: 'shuffle names' },
    );
    expect(existsSync(raw(fx.root, [0x6f, 0x6c, 0x64, 0xe9]))).toBe(false);
    const rows = capture.checkpoints.map((row) => [row.op, row.path, row.status, row.skipReason]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['modify', 'workspace:tracked.txt', 'recorded', null],
        ['delete', 'workspace:old\\xe9', 'skipped', 'invalid_name'],
        ['create', 'workspace:new\\xff.bin', 'skipped', 'invalid_name'],
        ['create', 'workspace:dir\\xfe', 'skipped', 'invalid_name'],
      ]),
    );
    expect(capture.partiallyProtected).toBe(true);
    expect(capture.uncovered).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'workspace:old\\xe9', reason: 'invalid_name', detail: expect.stringContaining('deleted') }),
        expect.objectContaining({ path: 'workspace:new\\xff.bin', reason: 'invalid_name', detail: expect.stringContaining('created') }),
      ]),
    );
    const turn = await fx.store.getTurn(fx.turnId);
    expect(turn.metadata.partiallyProtected).toBe(true);

    const rewinder = new FileRewinder({ store: fx.store });
    const outcome = await rewinder.cascade(fx.sessionId, fx.userMessageId).then(
      () => 'succeeded',
      (error: unknown) => (WaypointError.is(error) ? { code: error.code, message: error.message } : String(error)),
    );
    expect(outcome).toMatchObject({ code: 'SNAPSHOT_MISSING', message: expect.stringContaining('old\\xe9') });
    const rollback = await rewinder.rollbackTurn(fx.turnId);
    expect(rollback.ok).toBe(false);
    expect(rollback.errors.map((error) => error.path)).toEqual(expect.arrayContaining(['workspace:old\\xe9', 'workspace:new\\xff.bin', 'workspace:dir\\xfe']));
    // What could be restored was: the tracked file is back.
    expect(readdirSync(fx.root)).toContain('tracked.txt');
  });

  it('a shell command that deletes ignored files and directories reports each as uncovered and records it as not restorable', async () => {
    writeFileSync(join(fx.root, '.gitignore'), '.env\nbuild/\n*.log\n');
    writeFileSync(join(fx.root, '.env'), 'SECRET=1\n');
    mkdirSync(join(fx.root, 'build'));
    writeFileSync(join(fx.root, 'build', 'out.js'), 'built\n');
    writeFileSync(join(fx.root, 'kept.log'), 'still here\n');
    const { capture } = await captureExec(fx.context, () => bash(fx.root, 'rm .env; rm -r build'), { command: 'clean' });
    expect(existsSync(join(fx.root, '.env')) || existsSync(join(fx.root, 'build'))).toBe(false);
    expect(capture.partiallyProtected).toBe(true);
    const deleted = capture.uncovered.filter((item) => item.detail?.includes('deleted'));
    expect(deleted.map((item) => [item.path, item.reason])).toEqual([
      ['workspace:.env', 'ignored'],
      ['workspace:build', 'ignored'],
    ]);
    expect(capture.checkpoints.map((row) => [row.op, row.path, row.status, row.skipReason])).toEqual([
      ['delete', 'workspace:.env', 'skipped', 'ignored'],
      ['delete', 'workspace:build', 'skipped', 'ignored'],
    ]);
    const turn = await fx.store.getTurn(fx.turnId);
    expect(turn.metadata.uncovered).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'workspace:.env', reason: 'ignored', command: 'clean' })]));
    const rollback = await new FileRewinder({ store: fx.store }).rollbackTurn(fx.turnId);
    expect(rollback.ok).toBe(false);
    expect(rollback.errors.map((error) => [error.path, error.code])).toEqual([
      ['workspace:build', 'CHECKPOINT_SKIPPED'],
      ['workspace:.env', 'CHECKPOINT_SKIPPED'],
    ]);
  });
});
