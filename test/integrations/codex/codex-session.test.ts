import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contents, createProject, write } from '../claude/project-fixture.js';
import { runCodex, writeCodexConfig } from './codex-harness.js';
import { ResponsesServer } from './responses-server.js';

const PATCH = [
  '*** Begin Patch',
  '*** Add File: notes.md',
  '+line one',
  '+line two',
  '*** Update File: a.txt',
  '@@',
  '-hello',
  '+hello world',
  '*** Update File: d.txt',
  '*** Move to: e.txt',
  '@@',
  '-move me',
  '+moved',
  '*** Delete File: c.txt',
  '*** End Patch',
  '',
].join('\n');

/**
 * The real Codex CLI binary, headless (`codex exec`), offline against a scripted local Responses
 * API, with Waypoint's hooks installed in Codex's hooks.json: a prompt whose apply_patch adds,
 * updates, moves and deletes files, a person's edits, a prompt whose shell command runs sed -i, rm
 * and mv; then Waypoint's undo, redo, merge, force, cascade and isolated fork from another
 * "terminal", checked byte for byte on disk.
 */
describe('Codex CLI through its hooks (real binary)', () => {
  const fixture = createProject({ 'a.txt': 'hello\nmiddle\nend\n', 'c.txt': 'delete me\n', 'd.txt': 'move me\n', 'keep.txt': 'kept\n' });
  const { project, home } = fixture;
  const codexHome = join(home, '.codex');
  let server: ResponsesServer;
  let codexId = '';
  const trees: Record<string, Record<string, string>> = {};
  let prompts: Array<{ id: string; text: string }> = [];
  const installs: Array<{ code: number | null; stdout: string }> = [];
  let personsHooks = '';
  const eventLog = () => join(fixture.dir, 'events-log');
  const fired = () => (existsSync(eventLog()) ? readFileSync(eventLog(), 'utf8').split('\n').filter(Boolean).length : 0);
  const helperStatus = () => fixture.waypoint('hooks', 'status', '--scope', 'user', '--json').json().helper;
  // What the store's resident helper recorded of the second prompt's run, and what Codex fired in it.
  const second = { firedEvents: 0, helperEvents: 0, helperPid: 0, pidAfter: 0 };

  beforeAll(async () => {
    server = await ResponsesServer.start({
      'Patch the files': [
        [
          { type: 'message', text: 'Patching.' },
          { type: 'apply_patch', patch: PATCH },
        ],
        [{ type: 'message', text: 'Done with the patch.' }],
      ],
      'Tidy up with the shell': [
        [{ type: 'shell', cmd: "sed -i 's/world/there/' a.txt && rm notes.md && mv e.txt f.txt && printf 'made\\n' > made.txt" }],
        [{ type: 'message', text: 'Done with the shell.' }],
      ],
      // The forked conversation's prompt (asked after the fork, below).
      'Carry on in the fork': [[{ type: 'shell', cmd: 'pwd > where.txt' }], [{ type: 'message', text: 'Carried on.' }]],
    });
    writeCodexConfig(codexHome, server.url);
    // The person's own hooks, which Waypoint's install must keep (and which must still run): one on
    // Stop, and one on every event Waypoint hooks, counting what Codex fires.
    const count = (event: string) => ({ type: 'command', command: `echo ${event} >> ${eventLog()}` });
    const persons = {
      hooks: {
        SessionStart: [{ hooks: [count('SessionStart')] }],
        UserPromptSubmit: [{ hooks: [count('UserPromptSubmit')] }],
        PreToolUse: [{ matcher: '*', hooks: [count('PreToolUse')] }],
        PostToolUse: [{ matcher: '*', hooks: [count('PostToolUse')] }],
        Stop: [{ hooks: [{ type: 'command', command: `echo stopped >> ${join(fixture.dir, 'stop-marker')}` }, count('Stop')] }],
        SessionEnd: [{ hooks: [count('SessionEnd')] }],
      },
    };
    personsHooks = `${JSON.stringify(persons, null, 2)}\n`;
    write(codexHome, 'hooks.json', personsHooks);
    installs.push(fixture.waypoint('hooks', 'install', 'codex', '--scope', 'user', '--dry-run'));
    installs.push(fixture.waypoint('hooks', 'install', 'codex', '--scope', 'user'));
    installs.push(fixture.waypoint('hooks', 'install', 'codex', '--scope', 'user'));
    trees.start = contents(project);
    const first = await runCodex('Patch the files', { cwd: project, home, codexHome });
    expect(first.code, first.stderr).toBe(0);
    codexId = first.sessionId!;
    trees.afterFirst = contents(project);
    // The person edits between the two prompts: a new file and a change to one Codex never touched.
    write(project, 'person.txt', 'mine\n');
    write(project, 'keep.txt', 'kept, and edited by the person\n');
    trees.personEdited = contents(project);
    // The first prompt's first event started the store's resident helper: every event of the second goes through it.
    for (let wait = 0; wait < 100 && helperStatus().state !== 'serving'; wait++) await sleep(200);
    const before = helperStatus();
    expect(before.state).toBe('serving');
    const firedBefore = fired();
    const resumed = await runCodex('Tidy up with the shell', { cwd: project, home, codexHome, resume: codexId });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.sessionId).toBe(codexId);
    const after = helperStatus();
    Object.assign(second, {
      firedEvents: fired() - firedBefore,
      helperEvents: after.events.codex - before.events.codex,
      helperPid: before.pid,
      pidAfter: after.pid,
    });
    trees.afterSecond = contents(project);
    const status = fixture.waypoint('rewind', codexId, 'status', '--json').json();
    prompts = status.targets.map((target: { messageId: string; text: string }) => ({ id: target.messageId, text: target.text }));
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    fixture.cleanup();
  });

  it("installs into Codex's hooks.json beside the person's hook, shown first, once", () => {
    const [dryRun, install, again] = installs;
    expect(dryRun!.code).toBe(0);
    expect(dryRun!.stdout).toContain('Would add');
    expect(dryRun!.stdout).toContain('+');
    expect(install!.code).toBe(0);
    expect(install!.stdout).toContain('hooks run codex');
    expect(again!.stdout).toContain('already in');
    const hooks = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).hooks;
    expect(hooks.Stop[0].hooks[0].command).toContain('stop-marker');
    expect(hooks.PreToolUse[0].hooks[0].command).toContain('events-log');
    // The bash client first (one process an event, handing it to the store's helper), the Node client behind it.
    expect(hooks.PreToolUse[1].hooks[0].command).toMatch(/^\/bin\/bash \S+\/bin\/claude-hook\.bash \S+ \S+\/waypoint\.js hooks run codex --store /);
  });

  it("hands every event of the resumed session to the store's resident helper, which records them for Codex", () => {
    // SessionStart, UserPromptSubmit, PreToolUse and PostToolUse of the shell call, Stop, SessionEnd.
    expect(second.firedEvents).toBe(6);
    expect(second.helperEvents).toBe(second.firedEvents);
    expect(second.pidAfter).toBe(second.helperPid);
    expect(helperStatus().events.claude).toBe(0);
  });

  it("ran the scripted tools for real, kept the person's hook running, and logged no hook failure", () => {
    expect(server.unused.filter((step) => !step.startsWith('Carry on in the fork'))).toEqual([]);
    expect(trees.afterFirst).toEqual({ 'a.txt': 'hello world\nmiddle\nend\n', 'e.txt': 'moved\n', 'keep.txt': 'kept\n', 'notes.md': 'line one\nline two\n' });
    expect(trees.afterSecond).toEqual({
      'a.txt': 'hello there\nmiddle\nend\n',
      'f.txt': 'moved\n',
      'keep.txt': 'kept, and edited by the person\n',
      'made.txt': 'made\n',
      'person.txt': 'mine\n',
    });
    expect(readFileSync(join(fixture.dir, 'stop-marker'), 'utf8')).toBe('stopped\nstopped\n');
    const status = fixture.waypoint('hooks', 'status', '--scope', 'user', '--json').json();
    const codex = status.agents.find((agent: { agent: string }) => agent.agent === 'codex');
    expect(codex.failures).toEqual([]);
    expect([...codex.events].sort()).toEqual(['PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
  });

  it("records one session named by Codex's id, a turn per prompt, apply_patch's files as tool checkpoints and the shell's as scanned ones", () => {
    expect(prompts.map((prompt) => prompt.text)).toEqual(['Patch the files', 'Tidy up with the shell']);
    const listed = fixture.waypoint('checkpoints', codexId, '--json').json();
    const rows = (listed.checkpoints ?? listed).map((row: { op: string; path: string; source: string; anchorMessageId: string }) => [
      row.anchorMessageId === prompts[0]!.id ? 1 : 2,
      row.op,
      row.path.replace('workspace:', ''),
      row.source,
    ]);
    expect(rows.sort()).toEqual(
      [
        [1, 'create', 'notes.md', 'tool'],
        [1, 'modify', 'a.txt', 'tool'],
        [1, 'delete', 'd.txt', 'tool'],
        [1, 'create', 'e.txt', 'tool'],
        [1, 'delete', 'c.txt', 'tool'],
        [2, 'modify', 'a.txt', 'exec'],
        [2, 'delete', 'notes.md', 'exec'],
        [2, 'delete', 'e.txt', 'exec'],
        [2, 'create', 'f.txt', 'exec'],
        [2, 'create', 'made.txt', 'exec'],
      ].sort(),
    );
    const shown = fixture.waypoint('show', codexId).stdout;
    expect(shown).toContain('Tidy up with the shell');
    expect(shown).toContain('Done with the shell.');
  });

  it("mirrors Codex's conversation from its rollout: each prompt, then its replies, tool calls and their outputs, in order, each once", () => {
    const shown = fixture.waypoint('show', codexId, '--json').json();
    const lines = shown.messages.map((message: { role: string; parts: Array<Record<string, unknown>> }) =>
      message.parts
        .map((part) =>
          part.type === 'text'
            ? `${message.role}: ${part.text}`
            : part.type === 'tool-call'
              ? `call ${part.toolName}`
              : part.type === 'tool-result'
                ? `result ${part.toolName}: ${String((part.output as { value?: string }).value)
                    .split('\n')
                    .find((line) => /Success|exited/.test(line))}`
                : part.type,
        )
        .join(' | '),
    );
    expect(lines).toEqual([
      'user: Patch the files',
      'assistant: Patching.',
      'call apply_patch',
      'result apply_patch: Success. Updated the following files:',
      'assistant: Done with the patch.',
      'user: Tidy up with the shell',
      'call exec_command',
      'result exec_command: Process exited with code 0',
      'assistant: Done with the shell.',
    ]);
    const text = fixture.waypoint('show', codexId).stdout;
    expect(text).toContain('Patching.');
    expect(text).toContain('[tool-call apply_patch');
    // The rewind targets (what `waypoint rewind` and the chat's /rewind picker offer) are the person's prompts.
    expect(prompts.map((prompt) => prompt.text)).toEqual(['Patch the files', 'Tidy up with the shell']);
  });

  it("undoes the last prompt (shell changes included), keeps the person's edits, and redoes it", () => {
    const undo = fixture.waypoint('rewind', codexId, 'cascade', 'code', prompts[1]!.id, '--apply', '--include-shell', '--json');
    expect(undo.code, undo.stdout + undo.stderr).toBe(0);
    expect(contents(project)).toEqual(trees.personEdited);
    const redo = fixture.waypoint('redo', codexId, undo.json().files.rewindId, '--json');
    expect(redo.code, redo.stderr).toBe(0);
    expect(contents(project)).toEqual(trees.afterSecond);
  });

  it('forks the files as they were at the second prompt into a new directory, leaving the project alone', () => {
    const before = contents(project);
    const target = join(fixture.dir, 'fork-at-second');
    const fork = fixture.waypoint('fork', codexId, '--message', prompts[1]!.id, '--isolated', target, '--json');
    expect(fork.code, fork.stdout + fork.stderr).toBe(0);
    expect(contents(project)).toEqual(before);
    expect(contents(target)).toEqual(trees.personEdited);
  });

  it("forks Codex's conversation before the second prompt too: `codex exec resume` of the new id goes on without it, in the fork's directory", async () => {
    const target = join(fixture.dir, 'fork-with-codex');
    const rollouts = () => readdirSync(join(codexHome, 'sessions'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl'));
    const [rollout] = rollouts().filter((name) => name.includes(codexId));
    const original = readFileSync(join(codexHome, 'sessions', rollout!));
    const fork = fixture.waypoint('fork', codexId, '--message', prompts[1]!.id, '--isolated', target, '--codex', '--json');
    expect(fork.code, fork.stdout + fork.stderr).toBe(0);
    const { codex } = fork.json();
    expect(codex.parentCodexSessionId).toBe(codexId);
    expect(codex.codexSessionId).not.toBe(codexId);
    expect(contents(target)).toEqual(trees.personEdited);
    const asked = server.requests.length;
    const resumed = await runCodex('Carry on in the fork', { cwd: target, home, codexHome, resume: codex.codexSessionId });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.sessionId).toBe(codex.codexSessionId);
    // What the model was sent: the first prompt and its replies, then the new prompt; the cut prompt is gone.
    const sent = server.requests.slice(asked).map((request) =>
      ((request.body as { input?: Array<{ type?: string; role?: string; content?: Array<{ text?: string }> }> }).input ?? [])
        .filter((item) => item.type === 'message' && (item.role === 'user' || item.role === 'assistant'))
        .map((item) => `${item.role}: ${(item.content ?? []).map((part) => part.text ?? '').join('')}`)
        .filter((line) => !line.includes('<environment_context>')),
    );
    expect(sent.length).toBe(2);
    expect(sent[0]).toEqual(['user: Patch the files', 'assistant: Patching.', 'assistant: Done with the patch.', 'user: Carry on in the fork']);
    expect(server.unused).toEqual([]);
    // Its shell command ran in the fork's directory, not the project's.
    expect(readFileSync(join(target, 'where.txt'), 'utf8')).toBe(`${target}\n`);
    expect(existsSync(join(project, 'where.txt'))).toBe(false);
    // The original rollout was only read, and Waypoint's record of the session is as it was.
    expect(readFileSync(join(codexHome, 'sessions', rollout!)).equals(original)).toBe(true);
    const status = fixture.waypoint('rewind', codexId, 'status', '--json').json();
    expect(status.targets.map((target: { text: string }) => target.text)).toEqual(['Patch the files', 'Tidy up with the shell']);
  });

  it('refuses to overwrite a later edit of the person, then merges it, cascades back past it by force, and redoes that', () => {
    write(project, 'a.txt', 'hello there\nmiddle\nend\nperson line\n');
    const edited = contents(project);
    const refused = fixture.waypoint('rewind', codexId, 'cascade', 'code', prompts[1]!.id, '--apply', '--include-shell', '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('a.txt');
    expect(contents(project)).toEqual(edited);
    const merged = fixture.waypoint('rewind', codexId, 'cascade', 'code', prompts[1]!.id, '--resolve', 'a.txt=merge', '--include-shell', '--json');
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(contents(project)).toEqual({ ...trees.personEdited, 'a.txt': 'hello world\nmiddle\nend\nperson line\n' });
    const forced = fixture.waypoint('rewind', codexId, 'cascade', 'code', prompts[0]!.id, '--resolve', 'a.txt=force', '--include-shell', '--json');
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(contents(project)).toEqual({ ...trees.start, 'keep.txt': 'kept, and edited by the person\n', 'person.txt': 'mine\n' });
    expect(existsSync(join(project, 'notes.md'))).toBe(false);
    const redo = fixture.waypoint('redo', codexId, forced.json().files.rewindId, '--json');
    expect(redo.code, redo.stderr).toBe(0);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('hello world\nmiddle\nend\nperson line\n');
  });

  it("uninstalls exactly Waypoint's entries, leaving the person's hooks.json as it was", () => {
    const uninstall = fixture.waypoint('hooks', 'uninstall', 'codex', '--scope', 'user');
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'))).toEqual(JSON.parse(personsHooks));
  });

  it('exits 0 whatever it is given, so Codex goes on, and logs the failure for `hooks status`', () => {
    const bin = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');
    const run = spawnSync(process.execPath, [bin, 'hooks', 'run', 'codex', '--store', fixture.storePath], {
      input: '{ not json',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    const status = fixture.waypoint('hooks', 'status', '--json').json();
    const codex = status.agents.find((agent: { agent: string }) => agent.agent === 'codex');
    expect(codex.failures.map((failure: { code: string }) => failure.code)).toEqual(['INVALID_HOOK_INPUT']);
  });
});
