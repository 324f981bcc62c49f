import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashContent } from '../../src/model/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';
import { runCli } from './cli-harness.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');

/** Runs a fixture script until it prints its first line. */
function start(script: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(fixtures, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited early (${code})`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

// `waypoint sweep <session>`: the hidden files a SIGKILLed writer left go, each content kept as a
// save `rewind status` lists and `rewind restore` puts back; --dry-run and refusals change nothing.
describe('waypoint sweep <session>', () => {
  let h: RewindHarness;
  let home: string;
  let writerPid = 0;
  const cli = (...args: string[]) => runCli([...args, '--store', h.storePath], { home });
  const hidden = () =>
    readdirSync(h.work)
      .filter((name) => /\.wp-(tmp|old)$/.test(name))
      .sort();

  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-cli-sweep-');
    home = join(h.dir, 'home');
    mkdirSync(home);
    h.put('a.txt', 'a as the person left it\n');
    h.put('b.txt', 'b as the person left it\n');
    await h.store.close();
    const writer = await start('leftover-writer-child.ts', [h.storePath, h.work, 'plain']);
    writerPid = writer.pid!;
    await kill(writer);
  }, 60_000);
  afterAll(() => h?.cleanup());

  it('keeps fresh leftovers by default; --dry-run lists exactly what would go and changes nothing; the sweep keeps every content', async () => {
    const left = hidden();
    expect(left).toHaveLength(2);
    const before = snapshotTree(h.work);

    const fresh = cli('sweep', h.session.id, '--dry-run', '--json');
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.json().swept).toEqual([]);
    expect(fresh.json().kept.map((item: { reason: string }) => item.reason)).toEqual(['recent', 'recent']);

    const dry = cli('sweep', h.session.id, '--dry-run', '--min-age', '0', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json().swept.map((item: { path: string }) => item.path)).toEqual(left.map((name) => `workspace:${name}`));
    const human = cli('sweep', h.session.id, '--dry-run', '--min-age', '0');
    expect(human.stdout).toContain('Dry run: nothing was removed or recorded.');
    expect(human.stdout).toContain('2 would be swept');
    expect(snapshotTree(h.work)).toEqual(before);
    expect(cli('rewind', h.session.id, 'status', '--json').json().preserved).toEqual([]);

    const swept = cli('sweep', h.session.id, '--min-age', '0');
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stdout).toContain('2 swept');
    expect(swept.stdout).toContain(`waypoint rewind ${h.session.id} restore <hash>`);
    expect(hidden()).toEqual([]);

    // Both contents are listed as kept aside; the replaced content of b.txt goes back to b.txt.
    const b = hashContent(Buffer.from('b as the person left it\n'));
    const preserved = cli('rewind', h.session.id, 'status', '--json').json().preserved as Array<{ path: string; hash: string }>;
    expect(preserved.map((save) => [save.path, save.hash]).sort()).toEqual(
      [
        ['workspace:a.txt', hashContent(Buffer.from(`unlanded write to a.txt by ${writerPid}\n`))],
        ['workspace:b.txt', b],
      ].sort(),
    );
    const status = cli('rewind', h.session.id, 'status').stdout;
    expect(status).toContain('Kept aside by `waypoint sweep`');
    expect(status).toContain(`put it back: waypoint rewind ${h.session.id} restore ${b.slice(0, 12)}`);
    const restored = cli('rewind', h.session.id, 'restore', b.slice(0, 12));
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(h.path('b.txt'), 'utf8')).toBe('b as the person left it\n');
  }, 120_000);

  it('bad input is a typed refusal with a stable code, and changes nothing', () => {
    const before = snapshotTree(h.work);
    const badAge = cli('sweep', h.session.id, '--min-age', '5 minutes', '--json');
    expect(badAge.code).toBe(2);
    expect(JSON.parse(badAge.stdout).error.code).toBe('USAGE');
    const unknown = cli('sweep', 'ses_nosuchsession', '--json');
    expect(JSON.parse(unknown.stdout).error.code).toBe('SESSION_NOT_FOUND');
    expect(unknown.code).not.toBe(0);
    const missing = cli('sweep', '--json');
    expect(missing.code).toBe(2);
    expect(snapshotTree(h.work)).toEqual(before);
  }, 60_000);

  it('while another process holds the workspace lock it is refused with WORKSPACE_BUSY and leaves the leftover', async () => {
    const holder = await start('rewind-lock-holder.ts', [h.storePath, h.work]);
    try {
      const writer = await start('leftover-writer-child.ts', [h.storePath, h.work, 'pid']);
      await kill(writer);
      const left = hidden();
      expect(left).toEqual([`.git.${writer.pid}.wp-tmp`]);
      const busy = cli('sweep', h.session.id, '--min-age', '0', '--json');
      expect(JSON.parse(busy.stdout).error.code).toBe('WORKSPACE_BUSY');
      expect(busy.code).toBe(4);
      expect(hidden()).toEqual(left);
    } finally {
      await kill(holder);
    }
    expect(cli('sweep', h.session.id, '--min-age', '0').code).toBe(0);
    expect(hidden()).toEqual([]);
  }, 60_000);
});
