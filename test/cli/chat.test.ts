import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PtySession } from './pty-harness.js';

/**
 * `waypoint chat` in a real pseudo-terminal: the person types, the scripted model answers, and the
 * test reads the screen and the files, as a user would.
 */

const NOTES = 'alpha\nbeta\ngamma\ndelta\n';

interface Fixture {
  dir: string;
  home: string;
  project: string;
  script: string;
  read(path: string): string | null;
}

function fixture(steps: unknown[]): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), NOTES);
  const script = join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ steps }));
  return {
    dir,
    home,
    project,
    script,
    read: (path) => (existsSync(join(project, path)) ? readFileSync(join(project, path), 'utf8') : null),
  };
}

function chat(fx: Fixture, extra: string[] = []): PtySession {
  return new PtySession(['chat', '--model', `scripted:${fx.script}`, ...extra], { home: fx.home, cwd: fx.project });
}

/** `waypoint chat` over a pipe (no terminal): the lines of `input` typed in order, then the end of input. */
function pipeChat(fx: Fixture, args: string[], input: string, script = fx.script) {
  return spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'waypoint.js'), 'chat', '--model', `scripted:${script}`, ...args], {
    cwd: fx.project,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: fx.home, WAYPOINT_HOME: fx.home },
    timeout: 60_000,
  });
}

/** Sends a line and waits for what it should print. */
async function send(pty: PtySession, line: string, expected: string | RegExp): Promise<string> {
  pty.mark();
  pty.line(line);
  return pty.waitFor(expected);
}

/** The message id of the input with this text, from `/rewind status`. */
async function inputId(pty: PtySession, text: string): Promise<string> {
  const screen = await send(pty, '/rewind status', 'Forms:');
  const match = new RegExp(`(msg_\\w+)\\s+"${text}"`).exec(screen);
  if (!match) throw new Error(`no input "${text}" in:\n${screen}`);
  return match[1]!;
}

const write = (path: string, content: string, text = `Wrote ${path}.`) => [{ toolCalls: [{ toolName: 'write', input: { path, content } }] }, { text }];
const edit = (path: string, oldString: string, newString: string, text = `Edited ${path}.`) => [
  { toolCalls: [{ toolName: 'edit', input: { path, oldString, newString } }] },
  { text },
];
const bash = (command: string, text = 'Ran it.') => [{ toolCalls: [{ toolName: 'bash', input: { command } }] }, { text }];

describe('waypoint chat in a terminal', () => {
  let fx: Fixture;
  let pty: PtySession | null = null;
  afterEach(() => {
    pty?.kill();
    pty = null;
    rmSync(fx.dir, { recursive: true, force: true });
  });

  describe('the /rewind picker', () => {
    beforeEach(() => {
      fx = fixture([
        ...write('a.txt', 'agent a\n', 'Wrote a.txt.'),
        ...bash('echo made-by-shell > b.txt', 'Made b.txt with a shell command.'),
        { text: 'A slow answer that streams for a while, word by word, so the person can type meanwhile.', delayMs: 120 },
        { text: 'The queued message, answered.' },
      ]);
    });

    it('navigates with ↑/↓, rewinds conversation and files with Enter, puts the input back in the prompt, and /redo brings everything back', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'write a', '/undo reverts them');
      await send(pty, 'make b with bash', 'Made b.txt with a shell command.');
      await pty.waitFor('/undo reverts them');
      expect(fx.read('a.txt')).toBe('agent a\n');
      expect(fx.read('b.txt')).toBe('made-by-shell\n');

      // The newest input is selected when the list opens; ↑/↓ move; file changes are listed too.
      let screen = await send(pty, '/rewind', 'Esc to cancel');
      expect(screen).toContain('❯ › make b with bash');
      expect(screen).toMatch(/file: create b\.txt\s+chk_\w+ · by a shell command/);
      expect(screen).toMatch(/file: create a\.txt\s+chk_\w+ · by write/);
      pty.mark();
      await pty.keys('down');
      await pty.waitFor('❯ › write a');
      pty.mark();
      await pty.keys('up');
      await pty.waitFor('❯ › make b with bash');
      pty.mark();
      await pty.keys('down', 'enter');
      await pty.waitFor('Rewind to before "write a"');
      pty.mark();
      await pty.keys('enter'); // conversation and code
      await pty.waitFor('Undo them too?');
      pty.mark();
      await pty.keys('down', 'enter'); // yes, the shell change too
      screen = await pty.waitFor('back in the prompt');
      expect(screen).toContain('Restored 2 files');
      expect(fx.read('a.txt')).toBeNull();
      expect(fx.read('b.txt')).toBeNull();
      // The draft is the input as typed: Enter would send it again; here it is cleared and /redo typed instead.
      await pty.waitFor(/› write a$/m);
      pty.press('ctrlU');
      screen = await send(pty, '/redo', 'Conversation redone');
      expect(screen).toContain('Redone: put back 2 files');
      expect(fx.read('a.txt')).toBe('agent a\n');
      expect(fx.read('b.txt')).toBe('made-by-shell\n');
      screen = await send(pty, '/rewind status', 'Forms:');
      expect(screen).toMatch(/"write a"[\s\S]*"make b with bash"/);
    });

    it('Esc closes the list and changes nothing; an empty session shows the empty state', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      let screen = await send(pty, '/rewind', 'Esc to close');
      expect(screen).toContain('Nothing to rewind yet');
      pty.mark();
      await pty.keys('escape');
      await pty.waitFor('Rewind cancelled; nothing was changed.');
      await send(pty, 'write a', '/undo reverts them');
      await send(pty, '/rewind', 'Esc to cancel');
      pty.mark();
      await pty.keys('down', 'escape');
      screen = await pty.waitFor('Rewind cancelled; nothing was changed.');
      expect(fx.read('a.txt')).toBe('agent a\n');
      screen = await send(pty, '/rewind status', 'Forms:');
      expect(screen).toContain('"write a"');
    });

    it('refuses /rewind while the agent is streaming, and a message typed meanwhile waits for the turn', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'write a', '/undo reverts them');
      await send(pty, 'make b with bash', 'Made b.txt');
      await pty.waitFor('/undo reverts them');
      await send(pty, 'tell me slowly', 'A slow');
      let screen = await send(pty, '/rewind', 'ignored while the agent is working');
      expect(screen).not.toContain('Esc to cancel');
      screen = await send(pty, '/undo', 'ignored while the agent is working');
      screen = await send(pty, 'and then this', '(queued: sent when the current turn ends');
      screen = await pty.waitFor('The queued message, answered.');
      expect(screen.indexOf('meanwhile.')).toBeGreaterThanOrEqual(0);
      expect(screen.indexOf('meanwhile.')).toBeLessThan(screen.indexOf('The queued message, answered.'));
      expect(fx.read('a.txt')).toBe('agent a\n');
      expect(fx.read('b.txt')).toBe('made-by-shell\n');
      // Once it ended, /rewind works again.
      await send(pty, '/rewind', 'Esc to cancel');
      pty.mark();
      await pty.keys('escape');
      await pty.waitFor('Rewind cancelled');
    });

    it('Ctrl-C stops a streaming turn and the chat goes on', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'write a', '/undo reverts them');
      await send(pty, 'make b with bash', 'Made b.txt');
      await pty.waitFor('/undo reverts them');
      await send(pty, 'tell me slowly', 'A slow');
      pty.mark();
      pty.press('ctrlC');
      await pty.waitFor('Turn interrupted.');
      const screen = await send(pty, '/sessions', '/resume <id> switches');
      expect(screen).toMatch(/\* ses_\w+\s+main/);
      pty.line('/exit');
      expect(await pty.exit()).toBe(0);
      expect(pty.screen).toMatch(/Continue it with: waypoint chat --resume ses_\w+/);
    });
  });

  describe('a background task', () => {
    beforeEach(() => {
      fx = fixture([
        { toolCalls: [{ toolName: 'bash', input: { command: 'sleep 1.5; echo later > late.txt', background: true } }] },
        { text: 'Started it in the background.' },
      ]);
    });

    it('ends while the /rewind list is open: its line goes above the list, which still works, and its file change is checkpointed', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'run it in the background', 'Started it in the background.');
      await send(pty, '/rewind', 'Esc to cancel');
      pty.mark();
      await pty.waitFor(/background task \w+ finished with exit code 0; 1 file change checkpointed/, 20_000);
      pty.mark();
      await pty.keys('escape');
      await pty.waitFor('Rewind cancelled; nothing was changed.');
      expect(fx.read('late.txt')).toBe('later\n');
      const screen = await send(pty, '/rewind', 'Esc to cancel');
      expect(screen).toMatch(/file: create late\.txt\s+chk_\w+ · by a shell command/);
      pty.mark();
      await pty.keys('escape');
      await pty.waitFor('Rewind cancelled');
      await send(pty, '/undo', "Undo these changes of the last turn's files?");
      pty.mark();
      await pty.keys('enter');
      await pty.waitFor('Undo this with /redo.');
      expect(fx.read('late.txt')).toBeNull();
    });
  });

  describe('/undo', () => {
    beforeEach(() => {
      fx = fixture([...edit('notes.txt', 'beta\n', 'BETA\n'), ...write('c.txt', 'agent c\n')]);
    });

    it('detects a later edit, merges around it, and /redo puts the pre-undo content back', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'shout beta', '/undo reverts them');
      expect(fx.read('notes.txt')).toBe('alpha\nBETA\ngamma\ndelta\n');
      const diff = await send(pty, '/diff', '+BETA');
      expect(diff).toContain('-beta');
      expect(diff).toMatch(/# chk_\w+\s+#\d+ modify notes\.txt/);
      expect(await send(pty, '/diff chk_nope', /CHECKPOINT_NOT_FOUND|not found/i)).not.toContain('+BETA');
      writeFileSync(join(fx.project, 'notes.txt'), 'alpha\nBETA\ngamma\ndelta\nepsilon (mine)\n');
      let screen = await send(pty, '/undo', 'What should happen to it?');
      expect(screen).toMatch(/notes\.txt\s+changed since the agent wrote it\s+\(merge available\)/);
      expect(screen).toContain('a merge changes the file as it is now:');
      expect(screen).toContain('      -BETA\n      +beta\n');
      expect(screen).toContain('❯ Merge');
      pty.mark();
      await pty.keys('enter');
      screen = await pty.waitFor('Undo this with /redo.');
      expect(fx.read('notes.txt')).toBe('alpha\nbeta\ngamma\ndelta\nepsilon (mine)\n');
      await send(pty, '/redo', 'Redone');
      expect(fx.read('notes.txt')).toBe('alpha\nBETA\ngamma\ndelta\nepsilon (mine)\n');
    });

    it('offers overwrite and skip when merge cannot apply; skipping the only file is refused; the overwritten text comes back with /redo; cancel changes nothing', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'shout beta', '/undo reverts them');
      await send(pty, 'write c', 'Wrote c.txt.');
      await pty.waitFor('/undo reverts them');
      writeFileSync(join(fx.project, 'c.txt'), 'entirely mine\n');
      let screen = await send(pty, '/undo', 'What should happen to it?');
      expect(screen).not.toContain('Merge:');
      expect(screen).toContain('❯ Overwrite');
      expect(screen).toContain('Skip: leave this file as it is');
      pty.mark();
      await pty.keys('down', 'down', 'enter'); // cancel
      await pty.waitFor('Cancelled; nothing was changed.');
      expect(fx.read('c.txt')).toBe('entirely mine\n');
      // Skipping the turn's only file leaves nothing to undo: refused, the person's text untouched.
      await send(pty, '/undo', 'What should happen to it?');
      pty.mark();
      await pty.keys('down', 'enter'); // skip
      await pty.waitFor('nothing is left to rewind');
      expect(fx.read('c.txt')).toBe('entirely mine\n');
      screen = await send(pty, '/undo', 'What should happen to it?');
      pty.mark();
      await pty.keys('enter'); // overwrite
      await pty.waitFor('Undo this with /redo.');
      expect(fx.read('c.txt')).toBeNull();
      await send(pty, '/redo', 'Redone');
      expect(fx.read('c.txt')).toBe('entirely mine\n');
    });

    it('asks before an undo without conflicts, and says when there is nothing to undo', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      let screen = await send(pty, '/undo', 'Nothing to undo');
      await send(pty, 'shout beta', '/undo reverts them');
      screen = await send(pty, '/undo', "Undo these changes of the last turn's files?");
      expect(screen).toMatch(/notes\.txt\s+will be restored/);
      pty.mark();
      await pty.keys('down', 'enter'); // No
      await pty.waitFor('Cancelled; nothing was changed.');
      expect(fx.read('notes.txt')).toBe('alpha\nBETA\ngamma\ndelta\n');
      await send(pty, '/undo', "Undo these changes of the last turn's files?");
      pty.mark();
      await pty.keys('enter');
      await pty.waitFor('Undo this with /redo.');
      expect(fx.read('notes.txt')).toBe(NOTES);
      screen = await send(pty, '/undo', 'Nothing to undo');
    });
  });

  describe('every /rewind form', () => {
    beforeEach(() => {
      fx = fixture([
        ...write('one.txt', 'one\n'),
        {
          toolCalls: [
            { toolName: 'edit', input: { path: 'one.txt', oldString: 'one\n', newString: 'one again\n' } },
            { toolName: 'write', input: { path: 'two.txt', content: 'two\n' } },
          ],
        },
        { text: 'Edited one.txt and wrote two.txt.' },
        ...edit('two.txt', 'two\n', 'two, edited\n'),
      ]);
    });

    it('status|help|-h, latest, <checkpointId>, conversation|message, code|workspace, both, cascade; bad forms are refused and change nothing', async () => {
      pty = chat(fx);
      await pty.waitFor('/help lists');
      await send(pty, 'first', '/undo reverts them');
      await send(pty, 'second', '/undo reverts them');
      await send(pty, 'third', '/undo reverts them');
      const first = await inputId(pty, 'first');
      const second = await inputId(pty, 'second');
      const third = await inputId(pty, 'third');
      for (const form of ['help', '-h']) expect(await send(pty, `/rewind ${form}`, 'Forms:')).toContain('Latest checkpoint: chk_');

      // Malformed or unknown: a typed message, nothing changed.
      let screen = await send(pty, '/rewind both', 'Type /rewind help');
      expect(screen).toContain('is missing an argument');
      screen = await send(pty, '/rewind sideways msg_x', 'Type /rewind help');
      screen = await send(pty, '/rewind conversation msg_nope', /NOT_FOUND|not found/i);
      screen = await send(pty, '/rewind chk_nope', /NOT_FOUND|not found/i);
      expect(fx.read('two.txt')).toBe('two, edited\n');

      // code|workspace <id>: that input's latest file change.
      await send(pty, `/rewind code ${third}`, 'Undo this with /redo.');
      expect(fx.read('two.txt')).toBe('two\n');
      await send(pty, '/redo', 'Redone');
      expect(fx.read('two.txt')).toBe('two, edited\n');
      await send(pty, `/rewind workspace ${third}`, 'Undo this with /redo.');
      expect(fx.read('two.txt')).toBe('two\n');
      await send(pty, '/redo', 'Redone');
      expect(fx.read('two.txt')).toBe('two, edited\n');

      // latest (the newest change), then <checkpointId> (the newest one not rewound yet: two.txt's creation).
      await send(pty, '/rewind latest', 'Undo this with /redo.');
      expect(fx.read('two.txt')).toBe('two\n');
      const status = await send(pty, '/rewind status', 'Forms:');
      const latest = /Latest checkpoint: (chk_\w+)\s+create two\.txt/.exec(status)?.[1];
      expect(latest).toBeDefined();
      await send(pty, `/rewind ${latest}`, 'Undo this with /redo.');
      expect(fx.read('two.txt')).toBeNull();
      await send(pty, '/redo', 'Redone');
      expect(fx.read('two.txt')).toBe('two\n');
      await send(pty, '/redo', 'Redone');
      expect(fx.read('two.txt')).toBe('two, edited\n');

      // conversation|message <id>: the conversation only; the input comes back as a draft.
      screen = await send(pty, `/rewind message ${third}`, 'back in the prompt');
      expect(screen).toContain(`Conversation rewound to before ${third}`);
      await pty.waitFor(/› third$/m);
      expect(fx.read('two.txt')).toBe('two, edited\n');
      pty.press('ctrlU');
      await send(pty, '/redo', 'Conversation redone');
      await send(pty, `/rewind conversation ${third}`, 'back in the prompt');
      pty.press('ctrlU');
      await send(pty, '/redo', 'Conversation redone');

      // both <id>: files and conversation in one.
      screen = await send(pty, `/rewind both ${third}`, 'back in the prompt');
      expect(screen).toContain(`Conversation rewound to before ${third}`);
      expect(fx.read('two.txt')).toBe('two\n');
      pty.press('ctrlU');
      await send(pty, '/redo', 'Conversation redone');
      expect(fx.read('two.txt')).toBe('two, edited\n');

      // cascade <scope> <id>: every change from that input on, newest first.
      await send(pty, `/rewind cascade code ${second}`, 'Undo this with /redo.');
      expect(fx.read('one.txt')).toBe('one\n');
      expect(fx.read('two.txt')).toBeNull();
      await send(pty, '/redo', 'Redone');
      expect(fx.read('one.txt')).toBe('one again\n');
      expect(fx.read('two.txt')).toBe('two, edited\n');
      screen = await send(pty, `/rewind cascade both ${second}`, 'back in the prompt');
      expect(fx.read('two.txt')).toBeNull();
      expect(fx.read('one.txt')).toBe('one\n');
      pty.press('ctrlU');
      screen = await send(pty, `/rewind cascade conversation ${first}`, 'back in the prompt');
      expect(screen).toContain(`Conversation rewound to before ${first}`);
      expect(fx.read('one.txt')).toBe('one\n');
      pty.press('ctrlU');
      screen = await send(pty, '/rewind status', 'Forms:');
      expect(screen).toContain('No user input to rewind to.');
    });
  });

  describe('edit, retry, fork, side chats and sessions', () => {
    beforeEach(() => {
      fx = fixture([
        ...write('plan.txt', 'plan A\n', 'Plan A written.'),
        ...write('plan.txt', 'plan B\n', 'Plan B written.'),
        ...write('plan.txt', 'plan C\n', 'Plan C written.'),
        { text: 'Second answer to the same input.' },
        { text: 'A side answer: split keeps an empty last element.' },
        { text: 'Another side answer.' },
        { text: 'Reply in the fork.' },
      ]);
    });

    it('/retry, /edit with and without text, /title, /side and /btw, /fork with a picker and an isolated copy, /resume, /help, unknown commands', async () => {
      pty = chat(fx, ['--title', 'Planning']);
      await pty.waitFor('/help lists');
      let screen = await send(pty, '/help', '/exit');
      for (const name of [
        '/rewind',
        '/undo',
        '/redo',
        '/diff',
        '/edit',
        '/retry',
        '/fork',
        '/side',
        '/btw',
        '/compact',
        '/sessions',
        '/resume',
        '/title',
        '/help',
      ])
        expect(screen).toContain(name);
      screen = await send(pty, '/frobnicate', 'Unknown command /frobnicate');

      await send(pty, 'write the plan', 'Plan A written.');
      await pty.waitFor('/undo reverts them');
      expect(fx.read('plan.txt')).toBe('plan A\n');

      // /edit <text>: the turn changed files, so the person chooses what happens to them.
      screen = await send(pty, '/edit write plan B', 'That turn changed files');
      pty.mark();
      await pty.keys('enter'); // undo the turn's files first
      await pty.waitFor('Plan B written.');
      await pty.waitFor('/undo reverts them');
      expect(fx.read('plan.txt')).toBe('plan B\n');
      screen = await send(pty, '/rewind status', 'Forms:');
      expect(screen).toContain('"write plan B"');
      expect(screen).not.toContain('"write the plan"');

      // /edit alone: the last input is put in the prompt to change.
      await send(pty, '/edit', 'Edit your last input');
      await pty.waitFor(/edit› write plan B$/m);
      pty.press('ctrlU');
      pty.mark();
      pty.line('write plan C');
      await pty.waitFor('That turn changed files');
      pty.mark();
      await pty.keys('down', 'enter'); // keep the files
      await pty.waitFor('Plan C written.');
      await pty.waitFor('/undo reverts them');
      expect(fx.read('plan.txt')).toBe('plan C\n');

      // /retry: the same input again, a new reply; the files stay.
      screen = await send(pty, '/retry', 'Second answer to the same input.');
      expect(fx.read('plan.txt')).toBe('plan C\n');

      screen = await send(pty, '/title', 'Title: "Planning"');
      screen = await send(pty, '/title Better plans', 'Title set: "Better plans"');

      screen = await send(pty, '/side what does split do?', 'back in');
      expect(screen).toContain('A side answer: split keeps an empty last element.');
      expect(screen).toMatch(/── side chat ses_\w+ ──/);
      screen = await send(pty, '/btw and another?', 'back in');
      expect(screen).toContain('Another side answer.');
      expect(await send(pty, '/side', 'ask a question')).toContain('/side <question>');

      // /fork with no argument: a list of checkpoints; a fork that would change files offers an isolated copy.
      screen = await send(pty, '/fork', 'Fork from before which file change?');
      pty.mark();
      await pty.keys('enter');
      await pty.waitFor('Where should the new session work?');
      pty.mark();
      await pty.keys('enter'); // isolated
      screen = await pty.waitFor('goes back.');
      const child = /Now in (ses_\w+) "Fork of Better plans"/.exec(screen)?.[1];
      const parent = /\/resume (ses_\w+) goes back/.exec(screen)?.[1];
      expect(child).toBeDefined();
      expect(fx.read('plan.txt')).toBe('plan C\n');
      const workspace = /workspace: (\S+) \(/.exec(screen)?.[1];
      expect(workspace && existsSync(workspace)).toBe(true);
      screen = await send(pty, 'continue in the fork', 'Reply in the fork.');
      screen = await send(pty, '/sessions', 'switches to one');
      expect(screen).toMatch(new RegExp(`\\* ${child}\\s+fork`));
      expect(screen).toMatch(/side_chat/);

      screen = await send(pty, `/resume ${parent}`, `Now in ${parent}`);
      expect(screen).toContain('"Better plans"');
      screen = await send(pty, '/resume', 'Resume which session?');
      pty.mark();
      await pty.keys('escape');
      // /fork latest, working here: the parent's file goes back to the fork point (kept for /redo there).
      screen = await send(pty, '/fork latest', 'Where should the new session work?');
      expect(screen).toContain('plan.txt');
      pty.mark();
      await pty.keys('down', 'enter');
      screen = await pty.waitFor('goes back.');
      expect(fx.read('plan.txt')).toBe('plan B\n');
      const shared = /Now in (ses_\w+) "Fork of Better plans"/.exec(screen)?.[1];
      expect(shared).toBeDefined();
      expect(screen).toContain(`/resume ${parent} then /redo brings the parent's files back.`);
      await send(pty, `/resume ${parent}`, `Now in ${parent}`);
      await send(pty, '/redo', 'Redone');
      expect(fx.read('plan.txt')).toBe('plan C\n');
      screen = await send(pty, '/fork msg_nope', 'No message with id "msg_nope"');
      screen = await send(pty, '/fork too many args', 'give one fork point');
      screen = await send(pty, '/sessions', 'switches to one');
      expect(screen).toMatch(new RegExp(`\\* ${parent}\\s+main`));
      pty.line('/exit');
      expect(await pty.exit()).toBe(0);
    });
  });
});

describe('waypoint chat over a pipe', () => {
  it('reads lines, numbers the picker choices, and --resume continues the session with its history', () => {
    const fx = fixture([...write('a.txt', 'agent a\n', 'Wrote a.txt.'), { text: 'Welcome back.' }]);
    try {
      // /rewind → 1 (the only input) → 2 (conversation only): the draft is printed, the file stays.
      const first = pipeChat(fx, [], 'write a\n/rewind\n1\n2\n/redo\n/exit\n');
      expect(first.status).toBe(0);
      expect(first.stdout).toContain('1) › write a');
      expect(first.stdout).toContain('Choose 1-2');
      expect(first.stdout).toContain('Your input, to edit and send again: "write a"');
      expect(first.stdout).toContain('Conversation redone');
      expect(fx.read('a.txt')).toBe('agent a\n');
      const session = /--resume (ses_\w+)/.exec(first.stdout)?.[1];
      expect(session).toBeDefined();
      // The model script restarts with the process: its second step answers the resumed session.
      const script = JSON.parse(readFileSync(fx.script, 'utf8'));
      writeFileSync(fx.script, JSON.stringify({ steps: script.steps.slice(2) }));
      const second = pipeChat(fx, ['--resume', session!], 'hello again\n');
      expect(second.status).toBe(0);
      expect(second.stdout).toContain('› write a');
      expect(second.stdout).toContain('Wrote a.txt.');
      expect(second.stdout).toContain('Welcome back.');
      // A failing model call is said once (the turn's end line), and the chat goes on.
      writeFileSync(fx.script, JSON.stringify({ steps: [] }));
      const failing = pipeChat(fx, ['--resume', session!], 'once more\n/sessions\n');
      expect(failing.status).toBe(0);
      expect(failing.stdout.match(/has played all 0 of its steps/g)).toHaveLength(1);
      expect(failing.stdout).toContain('Turn failed:');
      expect(failing.stdout).toContain('/resume <id> switches to one.');
      const bad = pipeChat(fx, ['--resume', 'ses_nope'], '');
      expect(bad.status).toBe(3);
      expect(bad.stderr).toContain('ses_nope');
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});

describe('waypoint chat after a crash', () => {
  it('--resume repairs a turn the SIGKILLed chat left running, and the conversation goes on', async () => {
    const fx = fixture([
      ...write('a.txt', 'agent a\n', 'Wrote a.txt.'),
      { text: 'A long answer that is cut off by a crash somewhere in the middle of all these words.', delayMs: 150 },
      { text: 'Back after the crash.' },
    ]);
    try {
      const pty = new PtySession(['chat', '--model', `scripted:${fx.script}`], { home: fx.home, cwd: fx.project });
      await pty.waitFor('/help lists');
      pty.line('write a');
      await pty.waitFor('/undo reverts them');
      const session = /Session (ses_\w+) "write a" stored/.exec(pty.screen)![1]!;
      pty.mark();
      pty.line('tell me a long story');
      await pty.waitFor('A long answer');
      pty.kill(); // the pty host SIGKILLs the chat
      expect(await pty.exit()).not.toBe(0);
      // The next run starts the script over: skip what was played.
      const script = JSON.parse(readFileSync(fx.script, 'utf8'));
      writeFileSync(fx.script, JSON.stringify({ steps: script.steps.slice(3) }));
      const resumed = pipeChat(fx, ['--resume', session], 'are you there?\n/rewind status\n');
      expect(resumed.status).toBe(0);
      expect(resumed.stdout).toContain('1 turn marked interrupted');
      expect(resumed.stdout).toContain('Back after the crash.');
      expect(resumed.stdout).toMatch(/"write a"[\s\S]*"tell me a long story"[\s\S]*"are you there\?"/);
      expect(fx.read('a.txt')).toBe('agent a\n');
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});

describe('progress in the chat', () => {
  it('reports a long first scan and the copy of an isolated fork (plain lines over a pipe)', () => {
    const fx = fixture([...bash('echo new > made.txt', 'Made it.')]);
    try {
      for (let index = 0; index < 1500; index++) writeFileSync(join(fx.project, `f${index}.txt`), `file ${index}\n`);
      // /fork → 1 (the checkpoint of made.txt) → 1 (an isolated copy, since forking there would change a file here).
      const result = pipeChat(fx, [], 'make a file\n/fork\n1\n1\n/exit\n');
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('scanning the workspace before the command: making 1501 files durable of 1501 seen');
      expect(result.stdout).toMatch(/scanning the workspace before the command: 1501 files scanned in \d+ ms/);
      // The scan after the command reads one new file: it reports only when it lasts 100 ms, which
      // a fast machine does not reach (progress stays silent for short scans).
      expect(result.stdout).toMatch(/copying the workspace: \d+\/1501/);
      // The fork's report: what was written, that there is no git checkout here, and what was left out.
      expect(result.stdout).toMatch(/workspace: \S+ \(\d+ files, [^;]+; \d+ files? as at the fork point\)/);
      expect(result.stdout).toContain('git: none, a plain copy (not a git work tree)');
      expect(result.stdout).toContain('ignored paths: none');
      expect(result.stdout).toMatch(/Now in ses_\w+ "Fork of make a file"/);
      expect(fx.read('made.txt')).toBe('new\n');
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});

describe("README's chat quick start", () => {
  it('examples/chat-script.json writes, edits and runs a shell command, each change undoable', () => {
    const fx = fixture([]);
    try {
      const script = join(import.meta.dirname, '..', '..', 'examples', 'chat-script.json');
      const result = pipeChat(fx, [], 'make a greeter\nlet it shout\nnote it in a changelog\n/undo\n1\n/exit\n', script);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('1 file changed: create greet.js');
      expect(result.stdout).toContain('1 file changed: modify greet.js');
      expect(result.stdout).toContain('1 file changed: create CHANGELOG.md');
      expect(fx.read('greet.js')).toContain('HELLO');
      expect(fx.read('CHANGELOG.md')).toBeNull();
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});

describe('/compact', () => {
  it('summarizes the conversation for the model; /rewind status still lists every input', () => {
    const fx = fixture([{ text: `A long answer ${'words '.repeat(400)}` }, { text: 'SUMMARY: a long answer was given.' }, { text: 'Short.' }]);
    try {
      const result = pipeChat(fx, [], '/compact\ntell me a lot\n/compact keep it short\nand then?\n/rewind status\n');
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('has nothing to compact yet');
      expect(result.stdout).toMatch(/Compacted: the model is now sent ≈\d+ tokens instead of ≈\d+/);
      expect(result.stdout).toContain('Short.');
      expect(result.stdout).toMatch(/"tell me a lot"[\s\S]*"and then\?"/);
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});

describe('waypoint chat refusals', () => {
  it('refuses to start without a model, or in a missing directory, creating nothing', async () => {
    const fx = fixture([]);
    try {
      const noModel = new PtySession(['chat'], { home: fx.home, cwd: fx.project });
      expect(await noModel.exit()).toBe(2);
      expect(noModel.screen).toContain('choose a model with --model or $WAYPOINT_MODEL');
      const missing = new PtySession(['chat', '--model', `scripted:${fx.script}`, '--dir', join(fx.dir, 'nowhere')], { home: fx.home, cwd: fx.project });
      expect(await missing.exit()).toBe(2);
      expect(missing.screen).toContain('not an existing directory');
      const json = new PtySession(['chat', '--model', `scripted:${fx.script}`, '--json'], { home: fx.home, cwd: fx.project });
      expect(await json.exit()).toBe(2);
      expect(json.screen).toContain('"code": "USAGE"');
      expect(existsSync(join(fx.home, 'waypoint.db'))).toBe(false);
    } finally {
      rmSync(fx.dir, { recursive: true, force: true });
    }
  });
});
