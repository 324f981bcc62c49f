import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatch } from 'diff';
import { hashContent } from '../model/index.js';
import { writtenStamps } from '../workspace/index.js';
import { provableStamp } from '../../test/fixtures/stamp-proof.js';
import { checkpointPatch } from './checkpoint-patch.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolEdit, applyToolWrite, recordToolChange } from './tool-checkpoint.js';

describe('tool-level checkpoints', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture({ metadata: (dir) => ({ roots: [{ name: 'logs', dir: join(dir, 'logs'), kind: 'logs' }] }) });
  });
  afterEach(() => fx.cleanup());

  it('recordToolChange stores before and after byte-exact, with turn, anchor, tool and a patch that applies', async () => {
    const before = Buffer.from('one\ntwo\nthree\n');
    const after = Buffer.from('one\n2\nthree\nfour\n');
    const checkpoint = await recordToolChange({ ...fx.context, toolName: 'Write', toolCallId: 'call_1', path: 'src/a.ts', before, after, mode: 0o644 });
    expect(checkpoint).toMatchObject({
      op: 'modify',
      path: 'workspace:src/a.ts',
      toPath: null,
      source: 'tool',
      toolName: 'Write',
      toolCallId: 'call_1',
      status: 'recorded',
      turnId: fx.turnId,
      anchorMessageId: fx.userMessageId,
      beforeHash: hashContent(before),
      afterHash: hashContent(after),
      beforeMode: 0o644,
      afterMode: 0o644,
    });
    expect((await fx.blobs.get(checkpoint!.beforeHash!)).equals(before)).toBe(true);
    expect((await fx.blobs.get(checkpoint!.afterHash!)).equals(after)).toBe(true);
    expect(checkpoint!.patch).toBeNull();
    expect(applyPatch(before.toString(), (await checkpointPatch(fx.blobs, checkpoint!))!)).toBe(after.toString());
  });

  it('stores the after of an edit as a delta against its before', async () => {
    const lines = Array.from({ length: 800 }, (_, index) => `line ${index} of a source file with some text`);
    const before = Buffer.from(lines.join('\n'));
    lines[400] = 'changed';
    const checkpoint = await recordToolChange({ ...fx.context, toolName: 'Edit', path: 'big.txt', before, after: Buffer.from(lines.join('\n')) });
    expect(await fx.blobs.stat(checkpoint!.afterHash!)).toMatchObject({ encoding: 'delta', baseHash: checkpoint!.beforeHash });
  });

  it('a new file has a null before; binary content has no patch', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255, 0, 7]);
    const created = await recordToolChange({ ...fx.context, toolName: 'Write', path: 'img.png', before: null, after: png });
    expect(created).toMatchObject({ op: 'create', beforeHash: null, afterHash: hashContent(png), patch: null });
    expect((await fx.blobs.get(created!.afterHash!)).equals(png)).toBe(true);
  });

  it('a tool write is stamped (an undo knows the file by its stat) exactly when its times prove it, and a write into it since is not trusted', async () => {
    writtenStamps.clear();
    const result = await applyToolWrite(fx.context, { path: 'a.txt', content: 'after\n' });
    const path = join(fx.root, 'a.txt');
    const provable = provableStamp(path);
    expect(writtenStamps.holding(path, result.checkpoint!.afterHash!) !== null).toBe(provable);
    writeFileSync(path, 'other\n');
    expect(writtenStamps.holding(path, result.checkpoint!.afterHash!)).toBeNull();
  });

  it('records nothing for untracked roots, unchanged content, and refuses bad input', async () => {
    expect(await recordToolChange({ ...fx.context, toolName: 'Write', path: 'run.log', root: 'logs', before: null, after: Buffer.from('x') })).toBeNull();
    expect(await recordToolChange({ ...fx.context, toolName: 'Write', path: 'same.txt', before: Buffer.from('a'), after: Buffer.from('a') })).toBeNull();
    expect(await errorCode(() => recordToolChange({ ...fx.context, toolName: 'Write', path: '../out.txt', before: null, after: Buffer.from('x') }))).toBe(
      'PATH_OUTSIDE_WORKSPACE',
    );
    expect(await errorCode(() => recordToolChange({ ...fx.context, toolName: '', path: 'a', before: null, after: Buffer.from('x') }))).toBe('INVALID_ARGUMENT');
    expect(await errorCode(() => recordToolChange({ ...fx.context, toolName: 'Write', path: 'a', before: null, after: null }))).toBe('INVALID_ARGUMENT');
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
  });

  it('applyToolWrite writes atomically, keeps the mode, and records create then modify', async () => {
    const first = await applyToolWrite(fx.context, { path: 'bin/run.sh', content: '#!/bin/sh\necho 1\n', mode: 0o755, toolCallId: 'c1' });
    expect(first).toMatchObject({ path: 'workspace:bin/run.sh', created: true });
    expect(first.checkpoint).toMatchObject({ op: 'create', afterMode: 0o755, toolName: 'Write' });
    const second = await applyToolWrite(fx.context, { path: 'bin/run.sh', content: '#!/bin/sh\necho 2\n', toolCallId: 'c2' });
    expect(second.checkpoint).toMatchObject({ op: 'modify', beforeHash: first.checkpoint!.afterHash, beforeMode: 0o755, afterMode: 0o755 });
    expect(statSync(join(fx.root, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(fx.root, 'bin/run.sh'), 'utf8')).toBe('#!/bin/sh\necho 2\n');
    expect((await fx.blobs.get(second.checkpoint!.beforeHash!)).toString()).toBe('#!/bin/sh\necho 1\n');
    expect(readdirSync(join(fx.root, 'bin'))).toEqual(['run.sh']);
  });

  it('replaces the file only once its before content is stored and indexed; a storage failure changes nothing', async () => {
    writeFileSync(join(fx.root, 'a.txt'), 'before');
    const blobs = fx.context.blobs;
    const original = blobs.beginPutMany.bind(blobs);
    const seenAtCommit: string[] = [];
    blobs.beginPutMany = async (items, options) => {
      const pending = await original(items, options);
      return {
        ...pending,
        commit: async () => {
          const hashes = await pending.commit();
          seenAtCommit.push(readFileSync(join(fx.root, 'a.txt'), 'utf8'), String(await blobs.has(hashContent(Buffer.from('before')))));
          return hashes;
        },
      };
    };
    const result = await applyToolWrite(fx.context, { path: 'a.txt', content: 'after' });
    expect(seenAtCommit).toEqual(['before', 'true']);
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('after');
    expect(result.checkpoint).toMatchObject({ op: 'modify', beforeHash: hashContent(Buffer.from('before')) });

    blobs.beginPutMany = async () => {
      throw new Error('disk full');
    };
    await expect(applyToolWrite(fx.context, { path: 'a.txt', content: 'lost' })).rejects.toThrow('disk full');
    expect(readFileSync(join(fx.root, 'a.txt'), 'utf8')).toBe('after');
    expect(readdirSync(fx.root).filter((name) => name.endsWith('.wp-tmp'))).toEqual([]);
    expect(await fx.store.listCheckpoints(fx.sessionId)).toHaveLength(1);
  });

  it('a write through a symlink records the file the link points to', async () => {
    writeFileSync(join(fx.root, 'real.txt'), 'old');
    symlinkSync('real.txt', join(fx.root, 'link.txt'));
    const result = await applyToolWrite(fx.context, { path: 'link.txt', content: 'new' });
    expect(result.checkpoint).toMatchObject({ path: 'workspace:real.txt', op: 'modify' });
    expect(readFileSync(join(fx.root, 'real.txt'), 'utf8')).toBe('new');
  });

  it('applyToolWrite into an untracked root writes but records nothing; outside the roots writes nothing', async () => {
    const log = await applyToolWrite(fx.context, { path: join(fx.dir, 'logs', 'a.log'), content: 'line\n' });
    expect(log.checkpoint).toBeNull();
    expect(readFileSync(join(fx.dir, 'logs', 'a.log'), 'utf8')).toBe('line\n');
    expect(await errorCode(() => applyToolWrite(fx.context, { path: '../escape.txt', content: 'x' }))).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(existsSync(join(fx.dir, 'escape.txt'))).toBe(false);
    mkdirSync(join(fx.root, 'adir'));
    expect(await errorCode(() => applyToolWrite(fx.context, { path: 'adir', content: 'x' }))).toBe('PATH_IS_DIRECTORY');
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
  });

  it('applyToolEdit replaces exactly one occurrence and records the change', async () => {
    writeFileSync(join(fx.root, 'a.ts'), 'const a = 1;\nconst b = 2;\n', { mode: 0o600 });
    const result = await applyToolEdit(fx.context, { path: 'a.ts', oldString: 'b = 2', newString: 'b = 3', toolCallId: 'e1' });
    expect(result).toMatchObject({ replacements: 1, created: false });
    expect(result.checkpoint).toMatchObject({ op: 'modify', toolName: 'Edit', toolCallId: 'e1', beforeMode: 0o600, afterMode: 0o600 });
    expect(readFileSync(join(fx.root, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(await checkpointPatch(fx.blobs, result.checkpoint!)).toContain('-const b = 2;\n+const b = 3;');
  });

  it('a failed edit changes nothing and records nothing, with a code per cause', async () => {
    writeFileSync(join(fx.root, 'a.ts'), 'x = 1;\nx = 1;\n');
    writeFileSync(join(fx.root, 'bin.dat'), Buffer.from([1, 0, 2]));
    const codes = [
      await errorCode(() => applyToolEdit(fx.context, { path: 'a.ts', oldString: 'y = 2', newString: 'z' })),
      await errorCode(() => applyToolEdit(fx.context, { path: 'a.ts', oldString: 'x = 1', newString: 'x = 2' })),
      await errorCode(() => applyToolEdit(fx.context, { path: 'missing.ts', oldString: 'a', newString: 'b' })),
      await errorCode(() => applyToolEdit(fx.context, { path: 'bin.dat', oldString: '\u0001', newString: 'b' })),
      await errorCode(() => applyToolEdit(fx.context, { path: 'a.ts', oldString: '', newString: 'b' })),
      await errorCode(() => applyToolEdit(fx.context, { path: 'a.ts', oldString: 'x', newString: 'x' })),
    ];
    expect(codes).toEqual([
      'EDIT_OLD_STRING_NOT_FOUND',
      'EDIT_OLD_STRING_AMBIGUOUS',
      'EDIT_FILE_NOT_FOUND',
      'EDIT_NOT_TEXT',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
    ]);
    expect(readFileSync(join(fx.root, 'a.ts'), 'utf8')).toBe('x = 1;\nx = 1;\n');
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
    const all = await applyToolEdit(fx.context, { path: 'a.ts', oldString: 'x = 1', newString: 'x = 2', replaceAll: true });
    expect(all.replacements).toBe(2);
    expect(readFileSync(join(fx.root, 'a.ts'), 'utf8')).toBe('x = 2;\nx = 2;\n');
  });

  it('content above maxFileSize is written but recorded skipped / too_large, never dropped', async () => {
    const result = await applyToolWrite(fx.context, { path: 'big.bin', content: Buffer.alloc(2048, 7), maxFileSize: 1024 });
    expect(result.checkpoint).toMatchObject({ op: 'create', status: 'skipped', skipReason: 'too_large', beforeHash: null, afterHash: null });
    expect(statSync(join(fx.root, 'big.bin')).size).toBe(2048);
  });
});
