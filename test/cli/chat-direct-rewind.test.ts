import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PtySession } from './pty-harness.js';

/**
 * The chat's direct rewinds (`/rewind latest`, a file entry of the `/rewind` list) in a real
 * terminal, over a file the person changed after the agent wrote it: named, asked, "No" first.
 */
describe('waypoint chat: a direct rewind over a file changed since the agent wrote it', () => {
  let dir: string;
  let pty: PtySession | null = null;
  afterEach(() => {
    pty?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the file and asks (No is selected); Yes overwrites it, and /redo brings the person back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-direct-'));
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(project);
    const script = join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({ steps: [{ toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'agent\n' } }] }, { text: 'Wrote a.txt.' }] }),
    );
    const read = () => readFileSync(join(project, 'a.txt'), 'utf8');
    const send = async (line: string, expected: string | RegExp) => {
      pty!.mark();
      pty!.line(line);
      return pty!.waitFor(expected);
    };
    pty = new PtySession(['chat', '--model', `scripted:${script}`], { home, cwd: project });
    await pty.waitFor('/help lists');
    await send('write a', '/undo reverts them');
    writeFileSync(join(project, 'a.txt'), 'agent\nand the person\n');

    // Enter on the question answers its selected item, "No".
    let screen = await send('/rewind latest', 'a.txt changed since the agent wrote it. Overwrite with the earlier version?');
    expect(screen).toMatch(/❯ No/);
    pty.mark();
    await pty.keys('enter');
    await pty.waitFor('Rewind cancelled; nothing was changed.');
    expect(read()).toBe('agent\nand the person\n');

    // The same from the list's file entry: the question names the file; ↑ Enter is "Yes, overwrite".
    await send('/rewind', 'Esc to cancel');
    pty.mark();
    await pty.keys('down', 'enter');
    screen = await pty.waitFor('Overwrite with the earlier version?');
    expect(screen).toContain('a.txt changed since the agent wrote it');
    pty.mark();
    await pty.keys('up', 'enter');
    screen = await pty.waitFor('Undo this with /redo.');
    expect(screen).toMatch(/a\.txt\s+deleted\s+\(force\)/);
    expect(() => read()).toThrow();
    await send('/redo', 'Redone');
    expect(read()).toBe('agent\nand the person\n');
  });
});
