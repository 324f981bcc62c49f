import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { WaypointError } from '../../model/index.js';
import type { FileRewinder } from './file-rewinder.js';
import { RewindLedger } from './rewind-ledger.js';

describe('RewindLedger', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => ({ h, rewinder } = await RewindHarness.withRewinder()));
  afterEach(() => h.cleanup());

  it('follows rewinds, redos and redos of redos, and hands out copies', async () => {
    const turn = await h.turn();
    const first = await h.recordWrite(turn, 'a.txt', 'one\n');
    const second = await h.recordWrite(turn, 'b.txt', 'two\n');
    const rewind = await rewinder.cascade(h.session.id, turn.messageId);
    const rewound = async () => [...(await RewindLedger.load(h.store, h.session.id)).rewoundCheckpoints()].sort();
    expect(await rewound()).toEqual([first.id, second.id].sort());
    // Asked twice with nothing new: the same answer, and changing one copy changes nothing.
    const ledger = await RewindLedger.load(h.store, h.session.id);
    ledger.rewoundCheckpoints().clear();
    ledger.rewinds[0]!.checkpointIds.length = 0;
    expect(await rewound()).toEqual([first.id, second.id].sort());
    expect((await RewindLedger.load(h.store, h.session.id)).find(rewind.rewindId!)?.checkpointIds).toHaveLength(2);

    const redo = await rewinder.redo(h.session.id, rewind.rewindId!);
    expect(await rewound()).toEqual([]);
    expect((await rewinder.listRewinds(h.session.id)).map((entry) => [entry.rewindId, entry.redone])).toEqual([
      [rewind.rewindId, true],
      [redo.rewindId, false],
    ]);
    const again = await rewinder.redo(h.session.id, redo.rewindId!);
    expect(await rewound()).toEqual([first.id, second.id].sort());
    expect(h.files()).toEqual({});
    const refused = await rewinder.redo(h.session.id, rewind.rewindId!).catch((error: unknown) => error);
    expect(WaypointError.is(refused, 'REWIND_ALREADY_REDONE')).toBe(true);

    // A fresh store object (a restart) reads the same ledger from the entries.
    await h.reopen();
    expect(await rewound()).toEqual([first.id, second.id].sort());
    expect((await RewindLedger.load(h.store, h.session.id)).rewinds.map((entry) => [entry.rewindId, entry.redone])).toEqual([
      [rewind.rewindId, true],
      [redo.rewindId, true],
      [again.rewindId, false],
    ]);
  });
});
