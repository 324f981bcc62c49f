import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('examples/checkpointed-ai-sdk-tools.ts', () => {
  it('runs a real generateText loop over wrapped tools, then undoes the turn: the files are back', () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-example-'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'checkpointed-ai-sdk-tools.ts'), dir], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('model: Rewrote the notes and built the report.');
    expect(run.stdout).toMatch(/turn trn_\w+: (modify notes\.md, create out\/report\.txt|create out\/report\.txt, modify notes\.md)/);
    expect(run.stdout).toContain('notes.md after the turn: "# Notes\\n\\nrewritten by the agent\\n"');
    expect(run.stdout).toContain('undo: ok, 2 files put back');
    // What the example printed is what is on disk.
    expect(readFileSync(join(dir, 'project', 'notes.md'), 'utf8')).toBe('# Notes\n\nfirst draft\n');
    expect(existsSync(join(dir, 'project', 'out', 'report.txt'))).toBe(false);
  });
});
