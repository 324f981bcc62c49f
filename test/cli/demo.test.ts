import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/commands/demo.js';
import { main } from '../../src/cli/main.js';
import { SqliteStore } from '../../src/store/index.js';

describe('waypoint demo', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-demo-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a scripted session end to end and leaves the workspace and store as it says', async () => {
    const lines: string[] = [];
    const result = await runDemo({ dir, print: (line) => lines.push(line) });
    const output = lines.join('\n');
    expect(output).toContain('README.md            external_modified (merge applies cleanly');
    expect(output).toContain('can apply as is: false');
    expect(output).toContain('applied with README.md merged: 3 files restored');
    expect(output).toContain('the input comes back for editing: "Add a test, run it, and document the format."');
    expect(output).toContain('README.md, src/parser.js (no test yet');
    // After the redo the agent's README change and the person's line are both there.
    expect(readFileSync(join(dir, 'project', 'README.md'), 'utf8')).toBe('# parser\n\nParses key=value lines; empty lines are skipped.\n\nMaintained by the parser team.\n');
    expect(existsSync(join(dir, 'project', 'test', 'parser.test.js'))).toBe(true);
    expect(existsSync(join(dir, 'project-alternative', 'test'))).toBe(false);
    expect(readFileSync(join(dir, 'project-alternative', 'src', 'parser.js'), 'utf8')).toContain("filter((line) => line.trim() !== '')");
    const store = await SqliteStore.open({ path: result.storePath, readOnly: true });
    expect((await store.listSessions()).map((session) => session.kind)).toEqual(['main', 'fork', 'fork', 'side_chat']);
    expect(await store.history(result.sessionId)).toHaveLength(4);
    expect(await store.listCheckpoints(result.sessionId)).toHaveLength(4);
    await store.close();
  });

  it('refuses an unknown command with a usage error and exit code 2', async () => {
    expect(await main(['bogus'])).toBe(2);
    expect(await main(['demo', '--dir'])).toBe(2);
  });
});
