import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { displayWidth } from '../../src/cli/render/text-width.js';
import { PtySession } from './pty-harness.js';
import { renderScreen } from './screen.js';

/**
 * The chat's sessions as a person meets them, in a real pseudo-terminal (120 columns): a chat left
 * without input stores nothing, a session is named after its first input and remembers its model,
 * a compacted conversation reads back whole with the summary marked, the prompt says where a
 * /fork went, and a command typed while a reply streams prints above the reply, not into it.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'waypoint.js');
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

interface Fixture {
  dir: string;
  home: string;
  project: string;
  script: string;
  steps(steps: unknown[]): void;
}

function fixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-state-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const script = join(dir, 'script.json');
  return { dir, home, project, script, steps: (steps) => writeFileSync(script, JSON.stringify({ steps })) };
}

function cli(fx: Fixture, args: string[], options: { input?: string; cwd?: string } = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? fx.project,
    input: options.input ?? '',
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: fx.home, WAYPOINT_HOME: fx.home },
    timeout: 60_000,
  });
}

/** Waits until the program has drawn nothing new for a while. */
async function settled(pty: PtySession): Promise<void> {
  let length = -1;
  while (pty.raw.length !== length) {
    length = pty.raw.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('the chat and its sessions', () => {
  let fx: Fixture;
  let pty: PtySession | null = null;
  beforeEach(() => {
    fx = fixture();
  });
  afterEach(() => {
    pty?.kill();
    pty = null;
    rmSync(fx.dir, { recursive: true, force: true });
  });

  it('a chat left with no input stores no session, not even after /help or /sessions', async () => {
    fx.steps([{ text: 'never sent' }]);
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor('/help lists');
    pty.mark();
    pty.line('/help');
    await pty.waitFor('/exit');
    pty.mark();
    pty.line('/sessions');
    await pty.waitFor('/resume <id> switches to one.');
    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);
    expect(pty.screen).toContain('no session was stored');
    const sessions = cli(fx, ['sessions', '--json']);
    expect(sessions.status).toBe(0);
    expect(JSON.parse(sessions.stdout).sessions).toEqual([]);
  });

  it('names a session after its first input, resumes it without --model, and reads a compacted conversation back whole with the summary marked', async () => {
    fx.steps([{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'SUMMARY: the parser and the lexer were discussed.' }, { text: 'Later answer.' }]);
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor('/help lists');
    // The first input, pasted: a blank line, then a first line longer than a title may be.
    const firstLine = 'Fix the parser so that 中文 lines work, then explain what went wrong with the lexer and the tests';
    pty.type(`${PASTE_START}\r   ${firstLine}   \rand a second line${PASTE_END}\r`);
    await pty.waitFor('First answer.');
    pty.mark();
    pty.line('second question');
    await pty.waitFor('Second answer.');
    pty.mark();
    pty.line('/compact');
    await pty.waitFor('Compacted:');
    pty.mark();
    pty.line('after the compaction');
    await pty.waitFor('Later answer.');
    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);
    const sessionId = /Continue it with: waypoint chat --resume (ses_\w+)/.exec(pty.screen)![1]!;

    // The title: the first line with text, trimmed, at most 60 columns.
    const listed = JSON.parse(cli(fx, ['sessions', '--json']).stdout).sessions;
    expect(listed).toHaveLength(1);
    const title: string = listed[0].title;
    expect(title.startsWith('Fix the parser so that 中文 lines work')).toBe(true);
    expect(title.endsWith('…')).toBe(true);
    expect(displayWidth(title)).toBeLessThanOrEqual(60);
    expect(cli(fx, ['sessions']).stdout).toContain(JSON.stringify(title));

    // Resumed from another directory with no --model: the session's own model (its script) answers.
    fx.steps([{ text: 'Welcome back.' }]);
    pty = new PtySession(['chat', '--resume', sessionId], { home: fx.home, cwd: fx.home });
    const resumed = await pty.waitFor('/help lists');
    expect(resumed).toContain(`model scripted:`);
    await pty.waitFor('Later answer.');
    const history = pty.screen;
    const marker = history.indexOf('── compacted: summary of 4 earlier messages');
    expect(marker).toBeGreaterThan(0);
    expect(history.indexOf('Second answer.')).toBeLessThan(marker);
    expect(history.indexOf('SUMMARY: the parser and the lexer')).toBeGreaterThan(marker);
    expect(history.indexOf('Later answer.')).toBeGreaterThan(marker);
    pty.mark();
    pty.line('hello again');
    await pty.waitFor('Welcome back.');
    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);

    // waypoint show: the whole conversation, the summary marked where it was made; --json says which were compacted.
    const shown = cli(fx, ['show', sessionId]);
    expect(shown.status).toBe(0);
    const text = shown.stdout;
    const at = text.indexOf('── compacted: summary of 4 earlier messages');
    expect(at).toBeGreaterThan(0);
    expect(text.indexOf('second question')).toBeLessThan(at);
    expect(text.indexOf('SUMMARY: the parser')).toBeGreaterThan(at);
    expect(text.indexOf('after the compaction')).toBeGreaterThan(at);
    const json = JSON.parse(cli(fx, ['show', sessionId, '--json']).stdout);
    const messages: Array<{ kind: string; compacted: boolean; summaryOf: number | null }> = json.messages;
    expect(messages.map((message) => [message.kind, message.compacted, message.summaryOf])).toEqual([
      ['input', true, null],
      ['reply', true, null],
      ['input', true, null],
      ['reply', true, null],
      ['summary', false, 4],
      ['input', false, null],
      ['reply', false, null],
      ['input', false, null],
      ['reply', false, null],
    ]);
  });

  it('resuming a session that does not record its model asks for --model, changing nothing', async () => {
    const waypoint = await openWaypoint({ path: join(fx.home, 'waypoint.db') });
    const old = await waypoint.history.createSession({ title: 'Before models were recorded', workdir: fx.project });
    await waypoint.close();
    const run = cli(fx, ['chat', '--resume', old.id], { input: 'hello\n' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`session ${old.id} does not record which model it ran with`);
    expect(run.stderr).toContain('resume it with --model');
    expect(JSON.parse(cli(fx, ['show', old.id, '--json']).stdout).messages).toEqual([]);
  });

  it('after /fork into a copy, says which session and directory the chat is in, and the prompt keeps saying it', async () => {
    fx.steps([{ toolCalls: [{ toolName: 'write', input: { path: 'plan.txt', content: 'plan A\n' } }] }, { text: 'Plan A written.' }]);
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor('/help lists');
    pty.line('write the plan');
    await pty.waitFor('/undo reverts them');
    const parent = /Session (ses_\w+) "write the plan" stored/.exec(pty.screen)![1]!;
    pty.mark();
    pty.line('/fork');
    await pty.waitFor('Fork from before which file change?');
    pty.mark();
    await pty.keys('enter');
    await pty.waitFor('Where should the new session work?');
    pty.mark();
    await pty.keys('enter'); // a copy of the workspace
    const screen = await pty.waitFor(/Working in .+\(the chat started in .+\)\./);
    const child = /Now in (ses_\w+) "Fork of write the plan"/.exec(screen)![1]!;
    const workdir = /Working in (\S+) \(the chat started in (\S+)\)\./.exec(screen)!;
    expect(workdir[2]).toBe(fx.project);
    expect(workdir[1]).not.toBe(fx.project);
    // The prompt: the fork's short id and its directory, until the chat goes back.
    await pty.waitFor(new RegExp(`\\[fork …${child.slice(-6)} · \\S*${workdir[1]!.slice(-12).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\] › `));
    pty.mark();
    pty.line(`/resume ${parent}`);
    await pty.waitFor(`Now in ${parent}`);
    await settled(pty);
    const rows = renderScreen(pty.raw, 120);
    expect(rows.findLast((row) => row !== '')).toBe('›');
    pty.line('/exit');
    expect(await pty.exit()).toBe(0);
  });

  it('prints a command typed while the reply streams above the reply line, which goes on whole below it; the typing shows as typed', async () => {
    const words = Array.from({ length: 60 }, (_, index) => `r${String(index + 1).padStart(2, '0')}`);
    fx.steps([{ text: words.join(' '), delayMs: 80 }]);
    pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
    await pty.waitFor('/help lists');
    pty.mark();
    pty.line('tell me slowly');
    await pty.waitFor('r05');
    pty.type('/help');
    await pty.waitFor('working › /help');
    pty.press('enter');
    await pty.waitFor('r60');
    await settled(pty);
    const rows = renderScreen(pty.raw, 120);
    const echo = rows.indexOf('› /help');
    const helpLine = rows.findIndex((row) => row.trimStart().startsWith('/rewind'));
    const replyStart = rows.findIndex((row) => row.startsWith('r01'));
    expect(echo, rows.join('\n')).toBeGreaterThan(0);
    expect(helpLine).toBeGreaterThan(echo);
    expect(replyStart, rows.join('\n')).toBeGreaterThan(helpLine);
    // The reply, read from its first row on, is whole: no help line inside it.
    let reply = '';
    for (let index = replyStart; index < rows.length && /^r\d\d/.test(rows[index]!); index++) reply += rows[index];
    expect(reply.replace(/\s/g, '')).toBe(words.join(''));
    pty.press('ctrlD');
    expect(await pty.exit()).toBe(0);
  });
});
