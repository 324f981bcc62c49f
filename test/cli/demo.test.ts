import { mkdtempSync, rmSync } from 'node:fs';
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

  it('walks through rewind, redo and fork on a real store and leaves it consistent', async () => {
    const lines: string[] = [];
    const storePath = join(dir, 'demo.db');
    await runDemo({ store: storePath, print: (line) => lines.push(line) });
    const output = lines.join('\n');
    expect(output).toContain('nothing is deleted');
    expect(output).toContain('the tree still holds all 6 messages; 2 branches grow');
    expect(output).toContain('head moves are recorded as entries: rewind, redo');
    expect(output).toContain('latest version reads back verified: true');
    const store = await SqliteStore.open({ path: storePath, readOnly: true });
    const sessions = await store.listSessions();
    expect(sessions.map((session) => session.kind)).toEqual(['main', 'fork']);
    const main = await store.history(sessions[0]!.id);
    expect(main.map((message) => message.parts[0]?.content?.text)).toEqual([
      'Why does the parser choke on empty lines?',
      'It splits on "\\n" and indexes [0] of an empty token.',
      'Rewrite it with a regex.',
      'Done: /^(\\w+)=(.*)$/ per line.',
    ]);
    const stored = (await store.blobs.stats()).storedBytes;
    expect(stored).toBeLessThan(50 * 1024);
    await store.close();
  });

  it('refuses an unknown command with a usage error and exit code 2', async () => {
    expect(await main(['bogus'])).toBe(2);
    expect(await main(['demo', '--store'])).toBe(2);
  });
});
