import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/render/text-width.js';
import { PtySession } from './pty-harness.js';

/**
 * `waypoint chat` as a terminal program, in a real pseudo-terminal (120 columns): bracketed paste,
 * editing by grapheme, and a prompt line measured in display columns.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'waypoint.js');
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

interface Fixture {
  dir: string;
  home: string;
  project: string;
  script: string;
}

function fixture(steps: unknown[]): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-terminal-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const script = join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ steps }));
  return { dir, home, project, script };
}

/** The texts of the person's inputs in a session, as stored. */
function storedInputs(fx: Fixture, sessionId: string): string[] {
  const run = spawnSync(process.execPath, [BIN, 'show', sessionId, '--json'], {
    cwd: fx.project,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: fx.home, WAYPOINT_HOME: fx.home },
  });
  expect(run.status, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as { messages: Array<{ role: string; parts: Array<{ type: string; text?: string } | null> }> };
  return report.messages.filter((message) => message.role === 'user').map((message) => message.parts.map((part) => part?.text ?? '').join(''));
}

/** The session the chat stored at its first input. */
function storedSession(pty: PtySession): string {
  return /Session (ses_\w+) ".*" stored/.exec(pty.screen)![1]!;
}

/** The prompt line as last drawn: what follows the last erase of the line, escape sequences removed. */
function lastPromptLine(raw: string): string {
  const drawn = raw.slice(raw.lastIndexOf('\r\x1b[2K') + '\r\x1b[2K'.length);
  // eslint-disable-next-line no-control-regex
  return drawn.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r|\n/)[0]!;
}

/** Waits until the program has drawn nothing new for a while (each typed key of a long line is its own redraw). */
async function settled(pty: PtySession): Promise<void> {
  let length = -1;
  while (pty.raw.length !== length) {
    length = pty.raw.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('waypoint chat as a terminal program', () => {
  let fx: Fixture;
  let pty: PtySession | null = null;
  beforeEach(() => {
    fx = fixture([{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Third answer.' }, { text: 'Fourth answer.' }]);
  });
  afterEach(() => {
    pty?.kill();
    pty = null;
    rmSync(fx.dir, { recursive: true, force: true });
  });

  it('turns bracketed paste on, sends a pasted multi-line block as one message with its newlines, and turns it off on exit', async () => {
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor(/\/help lists/);

    // A terminal sends a pasted line break as a carriage return, the same byte as Enter.
    pty.mark();
    pty.type(`${PASTE_START}fix these three:\r  - the parser\r\n  - the lexer\r${PASTE_END}`);
    await pty.waitFor('the lexer');
    pty.type(' please\r');
    await pty.waitFor('First answer.');
    pty.mark();
    pty.line('and one more');
    await pty.waitFor('Second answer.');
    expect(pty.screen).not.toContain('Third answer.');

    pty.mark();
    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);
    expect(storedInputs(fx, storedSession(pty))).toEqual(['fix these three:\n  - the parser\n  - the lexer\n please', 'and one more']);
    expect(pty.raw).toContain('\x1b[?2004h');
    expect(pty.raw.slice(pty.raw.lastIndexOf('\x1b[?2004h'))).toContain('\x1b[?2004l');
  });

  it('edits by grapheme and keeps a long CJK and emoji line on one row of the terminal', async () => {
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor(/\/help lists/);

    // é as e + a combining accent, then a family emoji: ← and Backspace take each whole.
    pty.type('cafe\u0301!');
    await pty.keys('left', 'backspace');
    pty.type(' 👨‍👩‍👧');
    await pty.keys('backspace');
    pty.type('x');
    pty.mark();
    pty.press('enter');
    await pty.waitFor('First answer.');

    // 200 columns of CJK and emoji on a 120-column terminal: the drawn line scrolls, it never wraps.
    const long = '中文输入👍🏽'.repeat(20);
    pty.mark();
    pty.type(long);
    await pty.waitFor('👍🏽中文输入👍🏽');
    await settled(pty);
    const drawn = lastPromptLine(pty.raw);
    expect(displayWidth(drawn)).toBeLessThan(120);
    expect(drawn.endsWith('中文输入👍🏽')).toBe(true);
    expect(/\p{Cs}/u.test(pty.raw)).toBe(false);
    await pty.keys('enter');
    await pty.waitFor('Second answer.');

    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);
    expect(storedInputs(fx, storedSession(pty))).toEqual(['caf x!', long]);
  });

  describe('while the agent works', () => {
    beforeEach(() => {
      fx = fixture([
        { toolCalls: [{ toolName: 'bash', input: { command: 'sleep 1.5' } }] },
        { text: 'Slept.' },
        { text: 'A slow answer that streams for a while, word by word, so the person can type meanwhile and see it.', delayMs: 150 },
        { text: 'The draft, answered.' },
      ]);
    });

    it('shows a working line, and what is typed meanwhile as it is typed; the typing becomes the prompt when the turn ends', async () => {
      pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
      await pty.waitFor('/help lists');
      pty.mark();
      pty.line('sleep a little');
      await pty.waitFor('⏺ bash sleep 1.5');
      await pty.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] working…/);
      await pty.waitFor('Slept.');

      pty.mark();
      pty.line('tell me slowly');
      await pty.waitFor('A slow');
      pty.type('next 中文 question');
      await pty.waitFor('working › next 中文 question');
      // The turn ended: the typing is the prompt's line, to send with Enter.
      await pty.waitFor(/^› next 中文 question$/m);
      expect(pty.recent).toContain('meanwhile');
      pty.mark();
      pty.press('enter');
      await pty.waitFor('The draft, answered.');
      pty.press('ctrlD');
      expect(await pty.exit()).toBe(0);
    });
  });
});
