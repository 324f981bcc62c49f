import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolWrite, captureExec, CheckpointedFs, type CaptureContext } from '../../src/checkpoint/index.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { hashContent, WaypointError } from '../../src/model/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';

// Symbolic links through capture and every kind of file rewind, on real temp directories, links
// made by real `ln -s` in a real shell. `snapshotTree` shows a link as `link:<its exact text>`.

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

describe('symbolic links in capture and rewind', () => {
  let fx: CaptureFixture;
  let rewinder: FileRewinder;
  let outside: string;
  beforeEach(async () => {
    fx = await createCaptureFixture();
    rewinder = new FileRewinder({ store: fx.store });
    outside = join(fx.dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'not the workspace’s\n');
  });
  afterEach(() => fx.cleanup());

  const tree = () => snapshotTree(fx.root);
  /** Runs a shell command the way the runtime does: scanned before and after, its changes checkpointed. */
  async function shell(context: CaptureContext, script: string) {
    const { capture } = await captureExec(context, () => bash(fx.root, script), { toolName: 'Bash', toolCallId: `call-${script.length}`, command: script });
    return capture.checkpoints;
  }
  /** Files "an hour old", so the stat cache trusts them and the scan before the command is settled. */
  function settle(): void {
    const past = (Date.now() - 3_600_000) / 1000;
    bash(fx.root, 'true');
    for (const path of Object.keys(tree())) if (!lstatSync(join(fx.root, path)).isSymbolicLink()) utimesSync(join(fx.root, path), past, past);
  }

  it('every transition a shell command makes (create, retarget, delete, file ⇄ link, directory ⇄ link) previews safe, applies, and redoes, links kept verbatim', async () => {
    bash(
      fx.root,
      `printf 'a\\n' > a.txt; mkdir dir fromdir; printf 'b\\n' > dir/b.txt; printf 'f\\n' > fromdir/f.txt; printf 'plain\\n' > fromfile.txt
       ln -s a.txt retarget; ln -s a.txt tofile; ln -s dir todir; ln -s ${outside}/secret.txt gone; ln -s missing/nowhere gonedang`,
    );
    settle();
    const before = tree();
    const checkpoints = await shell(
      fx.context,
      `ln -s a.txt rel; ln -s ${outside}/secret.txt abs; ln -s ../../nowhere dang; ln -sfn dir retarget
       rm tofile && printf 'was a link\\n' > tofile; rm todir && mkdir todir && printf 'x\\n' > todir/x.txt
       rm gone gonedang; rm fromfile.txt && ln -s a.txt fromfile.txt; rm -r fromdir && ln -s dir fromdir`,
    );
    const after = tree();
    expect(after).toMatchObject({
      rel: 'link:a.txt',
      abs: `link:${outside}/secret.txt`,
      dang: 'link:../../nowhere',
      retarget: 'link:dir',
      fromdir: 'link:dir',
    });
    expect(checkpoints.every((checkpoint) => checkpoint.status === 'recorded')).toBe(true);

    const preview = await rewinder.preview({ sessionId: fx.sessionId, turnId: fx.turnId, includeShellChanges: true });
    expect(preview.files.filter((file) => file.status !== 'safe')).toEqual([]);
    expect(preview.canApply).toBe(true);
    const applied = await rewinder.apply(preview);
    expect(tree()).toEqual(before);
    expect(snapshotTree(outside)).toEqual({ 'secret.txt': expect.any(String) });

    const redone = await rewinder.redo(fx.sessionId, applied.rewindId!);
    expect(tree()).toEqual(after);
    await rewinder.redo(fx.sessionId, redone.rewindId!);
    expect(tree()).toEqual(before);
    expect(readlinkSync(join(fx.root, 'gone'))).toBe(`${outside}/secret.txt`);
    expect(readlinkSync(join(fx.root, 'gonedang'))).toBe('missing/nowhere');
  });

  it('a link a person retargeted, or replaced by a file holding its text, is a conflict; force restores it and keeps what was there', async () => {
    bash(fx.root, `printf 'a\\n' > a.txt; ln -s a.txt L`);
    settle();
    await shell(fx.context, 'ln -sfn b.txt L; ln -s a.txt M');
    bash(fx.root, `ln -sfn c.txt L; rm M; printf 'a.txt' > M`);
    const person = tree();
    const preview = await rewinder.preview({ sessionId: fx.sessionId, turnId: fx.turnId, includeShellChanges: true });
    const status = Object.fromEntries(preview.files.map((file) => [file.path, [file.status, file.mergeAvailable]]));
    expect(status).toEqual({ 'workspace:L': ['external_modified', false], 'workspace:M': ['external_modified', false] });
    expect(preview.files.find((file) => file.path === 'workspace:L')!.reason).toContain('symbolic link points elsewhere');
    expect(preview.files.find((file) => file.path === 'workspace:M')!.reason).toContain('a file is here now where the agent left a symbolic link');
    expect(preview.canApply).toBe(false);
    expect(await errorCode(() => rewinder.apply(preview))).toBe('REWIND_CONFLICT');
    expect(tree()).toEqual(person);

    const forced = await rewinder.preview({
      sessionId: fx.sessionId,
      turnId: fx.turnId,
      includeShellChanges: true,
      resolutions: { 'workspace:L': 'force', 'workspace:M': 'force' },
    });
    const result = await rewinder.apply(forced);
    expect(tree()).toEqual({ 'a.txt': expect.any(String), L: 'link:a.txt' });
    expect(await fx.blobs.has(hashContent('c.txt'))).toBe(true);
    // A redo brings back what the person had: the retargeted link and the file, each as itself.
    await rewinder.redo(fx.sessionId, result.rewindId!, { resolutions: {} });
    expect(tree()).toEqual(person);
  });

  it('direct forms: one checkpoint, a cascade over two turns and a turn rollback put links back as links; redo undoes each', async () => {
    bash(fx.root, `printf 'a\\n' > a.txt; ln -s a.txt L`);
    settle();
    const start = tree();
    await shell(fx.context, `ln -sfn ${outside}/secret.txt L; ln -s L chain`);
    const second = await fx.nextTurn('second');
    const retarget = (await shell(second, 'ln -sfn ../x/y L; rm chain')).find((checkpoint) => checkpoint.path === 'workspace:L');
    const end = tree();
    expect(end).toEqual({ 'a.txt': expect.any(String), L: 'link:../x/y' });

    const one = await rewinder.restoreCheckpoint(retarget!.id);
    expect(tree()).toEqual({ 'a.txt': expect.any(String), L: `link:${outside}/secret.txt` });
    await rewinder.redo(fx.sessionId, one.rewindId!);
    expect(tree()).toEqual(end);

    const cascade = await rewinder.cascade(fx.sessionId, fx.userMessageId);
    expect(tree()).toEqual(start);
    await rewinder.redo(fx.sessionId, cascade.rewindId!);
    expect(tree()).toEqual(end);

    const rollback = await rewinder.rollbackTurn(retarget!.turnId!);
    expect(rollback.ok).toBe(true);
    expect(tree()).toEqual({ 'a.txt': expect.any(String), L: `link:${outside}/secret.txt`, chain: 'link:L' });
    expect(snapshotTree(outside)).toEqual({ 'secret.txt': expect.any(String) });
  });

  it('undoing a tool’s delete of a link brings the link back (checked and direct), and a file the agent wrote over a deleted link', async () => {
    bash(fx.root, `printf 'a\\n' > a.txt; ln -s a.txt L; ln -s a.txt K`);
    const fs = new CheckpointedFs(fx.context);
    await fs.deleteFile('L');
    await fs.deleteFile('K');
    await fs.writeFile('K', 'a file now\n');
    const preview = await rewinder.preview({ sessionId: fx.sessionId, turnId: fx.turnId });
    expect(preview.files.map((file) => [file.path, file.status])).toEqual([
      ['workspace:K', 'safe'],
      ['workspace:L', 'safe'],
    ]);
    const applied = await rewinder.apply(preview);
    expect(tree()).toEqual({ 'a.txt': expect.any(String), K: 'link:a.txt', L: 'link:a.txt' });
    await rewinder.redo(fx.sessionId, applied.rewindId!);
    expect(tree()).toMatchObject({ K: expect.stringMatching(/^644 /) });
    expect(existsSync(join(fx.root, 'L'))).toBe(false);
    const deleteL = (await fx.store.listCheckpoints(fx.sessionId)).find((checkpoint) => checkpoint.path === 'workspace:L')!;
    await rewinder.restoreCheckpoint(deleteL.id);
    expect(tree()).toEqual({ 'a.txt': expect.any(String), K: `644 ${hashContent('a file now\n')}`, L: 'link:a.txt' });
  });

  it('a tool write whose path, or a parent of it, is a link pointing outside is refused and changes nothing anywhere', async () => {
    bash(fx.root, `ln -s ${outside}/secret.txt out; ln -s ${outside} outdir; ln -s ${outside}/new.txt dangling-out`);
    // A rewind restores a link that points outside (the agent's shell deleted it): the link comes back, nothing is followed.
    settle();
    await shell(fx.context, 'rm out');
    await rewinder.restoreLatest(fx.sessionId);
    expect(readlinkSync(join(fx.root, 'out'))).toBe(`${outside}/secret.txt`);
    const workspace = tree();
    const kept = snapshotTree(outside);
    const checkpoints = (await fx.store.listCheckpoints(fx.sessionId)).length;
    for (const path of ['out', 'outdir/new.txt', 'outdir/secret.txt', 'dangling-out']) {
      const error = await applyToolWrite(fx.context, { path, content: 'overwritten\n' }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(WaypointError.is(error, 'PATH_OUTSIDE_WORKSPACE'), `${path}: ${String(error)}`).toBe(true);
      await expect(new CheckpointedFs(fx.context).writeFile(path, 'overwritten\n')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
    expect(snapshotTree(outside)).toEqual(kept);
    expect(tree()).toEqual(workspace);
    expect((await fx.store.listCheckpoints(fx.sessionId)).length).toBe(checkpoints);

    // A link inside the workspace is followed: the write lands in the file it points to and is
    // recorded there; the link stays, and undoing the write restores that file.
    bash(fx.root, `printf 'v0\\n' > real.txt; ln -s real.txt alias`);
    const write = await applyToolWrite(fx.context, { path: 'alias', content: 'v1\n' });
    expect(write.checkpoint).toMatchObject({ path: 'workspace:real.txt' });
    await rewinder.restoreCheckpoint(write.checkpoint!.id);
    expect(tree()).toMatchObject({ alias: 'link:real.txt', 'real.txt': `644 ${hashContent('v0\n')}` });
    // Through a linked directory inside: recorded where the file really is, so its undo writes there.
    bash(fx.root, 'mkdir sub; ln -s sub linked');
    const inLinked = (await applyToolWrite(fx.context, { path: 'linked/n.txt', content: 'n\n' })).checkpoint;
    expect(inLinked).toMatchObject({ path: 'workspace:sub/n.txt' });
    const removed = await new CheckpointedFs(fx.context).deleteFile('linked/n.txt');
    expect(removed.path).toBe('workspace:sub/n.txt');
    await rewinder.restoreLatest(fx.sessionId);
    expect(tree()).toMatchObject({ linked: 'link:sub', 'sub/n.txt': `644 ${hashContent('n\n')}` });
  });

  it('a forced rewind replaces a link a person put where the agent’s file was, never writing through it', async () => {
    writeFileSync(join(fx.root, 'f.txt'), 'v0\n');
    await applyToolWrite(fx.context, { path: 'f.txt', content: 'v1\n' });
    unlinkSync(join(fx.root, 'f.txt'));
    symlinkSync(join(outside, 'secret.txt'), join(fx.root, 'f.txt'));
    // And a parent directory the rewind writes into, swapped for a link to the outside.
    mkdirSync(join(fx.root, 'sub'));
    writeFileSync(join(fx.root, 'sub', 'g.txt'), 'g0\n');
    await applyToolWrite(fx.context, { path: 'sub/g.txt', content: 'g1\n' });
    bash(fx.root, `rm -r sub; ln -s ${outside} sub; cp ${outside}/secret.txt ${outside}/g.txt`);
    const kept = snapshotTree(outside);
    const preview = await rewinder.preview({ sessionId: fx.sessionId, turnId: fx.turnId });
    expect(preview.files.find((file) => file.path === 'workspace:f.txt')!.reason).toContain('a symbolic link is here now where the agent left a file');
    const forced = await rewinder.preview({
      sessionId: fx.sessionId,
      turnId: fx.turnId,
      resolutions: { 'workspace:f.txt': 'force', 'workspace:sub/g.txt': 'force' },
    });
    const g = forced.files.find((file) => file.path === 'workspace:sub/g.txt')!;
    expect(g.status).toBe('file_read_failed');
    expect(g.reason).toContain('a symbolic link (sub) is in its path now');
    expect(forced.canApply).toBe(false);
    const direct = await rewinder.restoreLatest(fx.sessionId).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(WaypointError.is(direct, 'REWIND_CONFLICT'), String(direct)).toBe(true);
    expect(snapshotTree(outside)).toEqual(kept);
    // Restoring just the file's checkpoint: the link is replaced by the file, the outside untouched.
    const [fileCheckpoint] = await fx.store.listCheckpoints(fx.sessionId);
    await rewinder.restoreCheckpoint(fileCheckpoint!.id);
    expect(tree()).toMatchObject({ 'f.txt': `644 ${hashContent('v0\n')}`, sub: `link:${outside}` });
    expect(snapshotTree(outside)).toEqual(kept);
  });
});
