import { openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaypointError } from '../../model/index.js';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { FileRewinder } from './file-rewinder.js';

// A large file is recognised at its compare-and-replace by its stat (inode, size, times) instead
// of being read and hashed again: a person's save in place, with as many bytes, between the plan
// and that step must still be seen and kept.
const lockText = (tag: string) => `${tag}\n${'{"name":"dependency","version":"1.0.0"}\n'.repeat(12_000)}`;

describe('a large file saved in place while a rewind applies', () => {
  let h: RewindHarness;
  beforeEach(async () => {
    h = await RewindHarness.create();
  });
  afterEach(() => h.cleanup());

  it('is not overwritten: the rewind is refused and the save stays; unchanged, the same rewind applies', async () => {
    h.put('a.txt', 'a0\n');
    h.put('deep/lock.json', lockText('base'));
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'deep/lock.json', lockText('agnt'));
    // Old enough that the plan trusts the file's stat.
    await sleep(250);
    const save = lockText('mine');
    const rewinder = new FileRewinder({
      store: h.store,
      blobs: h.blobs,
      hooks: {
        afterStep: (path) => {
          if (path !== 'workspace:a.txt') return;
          // In place: same inode, same size.
          const fd = openSync(h.path('deep/lock.json'), 'r+');
          writeSync(fd, save);
          closeSync(fd);
        },
      },
    });
    const refused = await rewinder.rollbackTurn(turn.turnId).then(
      () => null,
      (error: unknown) => error,
    );
    expect(WaypointError.is(refused) && refused.code, String(refused)).toBe('REWIND_CONFLICT');
    expect(readFileSync(h.path('deep/lock.json'), 'utf8')).toBe(save);
    expect(h.read('a.txt')).toBe('a1\n');

    await h.recordWrite(turn, 'deep/lock.json', lockText('agnt'));
    await sleep(250);
    const result = await new FileRewinder({ store: h.store, blobs: h.blobs }).cascade(h.session.id, turn.messageId);
    expect(result.files.map((file) => file.path).sort()).toEqual(['workspace:a.txt', 'workspace:deep/lock.json']);
    expect(h.read('deep/lock.json')).toBe(lockText('base'));
    expect(h.read('a.txt')).toBe('a0\n');
  });
});
