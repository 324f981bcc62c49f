import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { CheckpointedFs } from './checkpointed-fs.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolEdit, applyToolWrite } from './tool-checkpoint.js';

/**
 * A person saves a file (temp file + rename, as editors do) in the instant after a write read it
 * and before the write puts its own content in place. The write call below reads the file before
 * its first await returns control (then it stores the contents, which awaits), so the save lands
 * exactly in that gap, every time.
 */
describe('a write over a file someone saves while it runs', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
    writeFileSync(join(fx.root, 'notes.md'), '#m:start\nthe first draft\n');
  });
  afterEach(() => fx.cleanup());

  const save = (content: string) => {
    writeFileSync(join(fx.root, '.notes.md.saving'), content);
    renameSync(join(fx.root, '.notes.md.saving'), join(fx.root, 'notes.md'));
  };

  async function expectRefusedAndKept(write: () => Promise<unknown>, saved: string): Promise<void> {
    const running = write();
    save(saved);
    expect(await errorCode(() => running)).toBe('FILE_CHANGED_DURING_WRITE');
    // The person's save is in place, nothing was recorded, and nothing was left beside the file.
    expect(readFileSync(join(fx.root, 'notes.md'), 'utf8')).toBe(saved);
    expect(await fx.store.listCheckpoints(fx.sessionId)).toEqual([]);
    expect(readdirSync(fx.root).filter((name) => name.startsWith('.notes.md'))).toEqual([]);
  }

  it('a Write is refused with FILE_CHANGED_DURING_WRITE and the save stays', async () => {
    await expectRefusedAndKept(() => applyToolWrite(fx.context, { path: 'notes.md', content: 'the agent rewrote it\n' }), '#m:start\nthe person saved this\n');
  });

  it('an Edit is refused the same way', async () => {
    await expectRefusedAndKept(
      () => applyToolEdit(fx.context, { path: 'notes.md', oldString: 'first draft', newString: 'agent draft' }),
      '#m:start\nthe person saved a first draft again\n',
    );
  });

  it('a checkpointed fs writeFile or deleteFile is refused the same way', async () => {
    const fs = new CheckpointedFs(fx.context);
    await expectRefusedAndKept(() => fs.writeFile('notes.md', 'the plugin wrote it\n'), 'saved before the plugin wrote\n');
    await expectRefusedAndKept(() => fs.deleteFile('notes.md'), 'saved before the plugin deleted\n');
  });

  it('a save that creates the file while a Write creates it is kept too', async () => {
    const running = applyToolWrite(fx.context, { path: 'new.md', content: 'the agent created it\n' });
    writeFileSync(join(fx.root, 'new.md'), 'the person created it first\n');
    expect(await errorCode(() => running)).toBe('FILE_CHANGED_DURING_WRITE');
    expect(readFileSync(join(fx.root, 'new.md'), 'utf8')).toBe('the person created it first\n');
  });

  it('with no save in between, the write goes through and records what it replaced', async () => {
    const result = await applyToolWrite(fx.context, { path: 'notes.md', content: 'the agent rewrote it\n' });
    expect(result.checkpoint).toMatchObject({ op: 'modify', beforeHash: hashContent(Buffer.from('#m:start\nthe first draft\n')) });
    expect(readFileSync(join(fx.root, 'notes.md'), 'utf8')).toBe('the agent rewrote it\n');
    expect(existsSync(join(fx.root, 'notes.md'))).toBe(true);
    expect(readdirSync(fx.root).filter((name) => name.startsWith('.notes.md'))).toEqual([]);
  });
});
