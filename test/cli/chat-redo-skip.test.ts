import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PtySession } from './pty-harness.js';

/** The chat's `/redo` over a file changed since the rewind: "Skip" leaves that file and redoes the rest. */
describe('waypoint chat: /redo skips a file changed since the undo', () => {
  let dir: string;
  let pty: PtySession | null = null;
  afterEach(() => {
    pty?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers skip per file; the skipped file keeps what the person wrote, the other files come back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-redo-skip-'));
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(project);
    const script = join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        steps: [
          {
            toolCalls: [
              { toolName: 'write', input: { path: 'a.txt', content: 'agent a\n' } },
              { toolName: 'write', input: { path: 'b.txt', content: 'agent b\n' } },
            ],
          },
          { text: 'Wrote both.' },
        ],
      }),
    );
    const read = (name: string) => {
      try {
        return readFileSync(join(project, name), 'utf8');
      } catch {
        return null;
      }
    };
    const send = async (line: string, expected: string | RegExp) => {
      pty!.mark();
      pty!.line(line);
      return pty!.waitFor(expected);
    };
    pty = new PtySession(['chat', '--model', `scripted:${script}`], { home, cwd: project });
    await pty.waitFor('/help lists');
    await send('write a and b', '/undo reverts them');
    await send('/undo', "Undo these changes of the last turn's files?");
    pty.mark();
    await pty.keys('enter');
    await pty.waitFor('Undo this with /redo.');
    expect([read('a.txt'), read('b.txt')]).toEqual([null, null]);

    writeFileSync(join(project, 'a.txt'), 'the person\n');
    let screen = await send('/redo', 'a.txt changed since the rewind. What should the redo do with it?');
    expect(screen).toContain('Skip: leave this file as it is, redo the rest');
    pty.mark();
    // Overwrite, Skip, Cancel: one down is Skip.
    await pty.keys('down', 'enter');
    screen = await pty.waitFor('Left as they are: a.txt.');
    expect(screen).toMatch(/b\.txt/);
    expect(read('a.txt')).toBe('the person\n');
    expect(read('b.txt')).toBe('agent b\n');
  }, 300_000);
});
