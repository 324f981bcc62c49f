import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { captureSinceBaseline, markScanBaseline } from './exec-baseline.js';
import { clearScanStateMemo, EXEC_SCAN_ENTRY } from './exec-scan-state.js';
import { createCaptureFixture, type CaptureFixture } from './fixtures/capture-fixture.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

describe('scan baseline of a hook handler', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
    const past = (Date.now() - 3_600_000) / 1000;
    for (const [path, content] of Object.entries({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' })) {
      mkdirSync(join(fx.root, path, '..'), { recursive: true });
      writeFileSync(join(fx.root, path), content);
      utimesSync(join(fx.root, path), past, past);
    }
  });
  afterEach(() => fx.cleanup());

  const states = async () => (await fx.store.listEntries(fx.sessionId, { type: EXEC_SCAN_ENTRY })).length;

  it('a baseline that finds the files as saved keeps the saved state; the next capture still records the command’s change', async () => {
    await markScanBaseline(fx.context);
    const saved = await states();
    // Nothing changed since: the saved state stays the baseline (no new state written).
    await markScanBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b1' });
    expect(await states()).toBe(saved);
    bash(fx.root, 'echo changed > a.txt && echo new > src/c.txt');
    clearScanStateMemo();
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b1' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path, row.afterHash])).toEqual([
      ['modify', 'workspace:a.txt', hashContent('changed\n')],
      ['create', 'workspace:src/c.txt', hashContent('new\n')],
    ]);
  });

  it('a change found by the baseline (someone else’s) becomes the new saved state and is not the command’s', async () => {
    await markScanBaseline(fx.context);
    const saved = await states();
    bash(fx.root, 'echo theirs > src/b.txt');
    const baseline = await markScanBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b2' });
    expect(baseline.external?.modified.map((item) => item.path)).toEqual(['workspace:src/b.txt']);
    expect(await states()).toBe(saved + 1);
    bash(fx.root, 'rm a.txt');
    const capture = await captureSinceBaseline(fx.context, { toolName: 'Bash', toolCallId: 'b2' });
    expect(capture?.checkpoints.map((row) => [row.op, row.path])).toEqual([['delete', 'workspace:a.txt']]);
  });
});
