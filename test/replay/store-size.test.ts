import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeUsage } from '../../src/operations/index.js';
import { buildGitHistory, git, random, removeHistory } from './git-history.js';
import { openReplay, type TurnMode } from './replay-driver.js';

const MODES: readonly TurnMode[] = ['tool', 'checkout', 'apply'];

function packBytes(repo: string): number {
  const dir = join(repo, '.git', 'objects', 'pack');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.pack'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

describe('store size on a replayed history, against git gc of the same history', () => {
  it('keeps file contents within 15% of git’s gc’d pack: one whole copy of a lock file changed every turn, scan states as deltas', async () => {
    const seed = 60;
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-replay-size-'));
    const history = buildGitHistory(dir, { seed, commits: 40, files: 200, lockLines: 4000 });
    const replay = await openReplay(dir, history);
    try {
      const pickMode = random(seed);
      for (let index = 1; index <= 40; index++) await replay.turn(MODES[Math.floor(pickMode() * MODES.length)]!);
      await replay.waypoint.blobs.compress();
      const usage = await storeUsage({ waypoint: replay.waypoint });
      const lockSize = git(history.repo, ['cat-file', '-s', `${history.commits[0]}:package-lock.json`])
        .toString()
        .trim();
      const records = await replay.waypoint.store.blobs.listRecords();
      const lockLike = records.filter((record) => Math.abs(record.size - Number(lockSize)) < 2000);
      expect(lockLike.length, `seed ${seed}: the lock file's versions`).toBeGreaterThan(20);
      expect(
        lockLike.filter((record) => record.encoding !== 'delta'),
        `seed ${seed}: whole copies of the lock file`,
      ).toHaveLength(1);
      git(history.repo, ['gc', '-q']);
      // Git's pack also holds trees and commits (about a tenth of it here): the contents of the
      // files stay within 15% of git's whole pack (they took 1.5× before deltas against the middle
      // of full chains and scan states as deltas).
      expect(usage.blobs.storedBytes, `seed ${seed}: stored blob bytes vs git's pack`).toBeLessThan(packBytes(history.repo) * 1.15);
    } finally {
      await replay.close();
      removeHistory(dir);
    }
  });
});
