import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClaude } from './claude-harness.js';
import { MessagesServer } from './messages-server.js';
import { contents, createProject, write } from './project-fixture.js';

/**
 * The real Claude Code binary, headless, against a scripted local Messages API, with Waypoint's
 * hooks installed: two prompts that change files through Write, Edit and Bash (sed -i, rm, mv, a
 * background command), a person's edits in between; then Waypoint's undo, redo, merge, force,
 * cascade and isolated fork from another "terminal", checked byte for byte on disk.
 */
describe('Claude Code through its hooks (real binary)', () => {
  const fixture = createProject({ 'c.txt': 'delete me\n', 'd.txt': 'move me\n', 'keep.txt': 'kept\n' });
  const { project, home } = fixture;
  let server: MessagesServer;
  let claudeId = '';
  const trees: Record<string, Record<string, string>> = {};
  let prompts: Array<{ id: string; text: string }> = [];

  beforeAll(async () => {
    // The person's own hooks, which Waypoint's install must keep (and which must still run).
    write(
      project,
      '.claude/settings.json',
      `${JSON.stringify({ permissions: { allow: ['Bash(ls:*)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo stopped >> "$CLAUDE_PROJECT_DIR/../stop-marker"' }] }] } }, null, 2)}\n`,
    );
    const install = fixture.waypoint('hooks', 'install', 'claude');
    expect(install.code).toBe(0);
    server = await MessagesServer.start([
      { text: 'Writing a.txt.', tools: [{ name: 'Write', input: { file_path: join(project, 'a.txt'), content: 'one\ntwo\n' } }] },
      { tools: [{ name: 'Bash', input: { command: "sed -i 's/two/TWO/' a.txt && rm c.txt && mv d.txt e.txt", description: 'edit, delete, move' } }] },
      { text: 'Done with the first request.' },
      { tools: [{ name: 'Edit', input: { file_path: join(project, 'a.txt'), old_string: 'one', new_string: 'ONE' } }] },
      { tools: [{ name: 'Bash', input: { command: 'sleep 1; echo background > bg.txt', description: 'in the background', run_in_background: true } }] },
      { tools: [{ name: 'Write', input: { file_path: join(project, 'src/b.txt'), content: 'b\n' } }] },
      { text: 'Done with the second request.' },
    ]);
    trees.start = contents(project);
    const first = await runClaude('Write a.txt, then tidy up with the shell', { cwd: project, home, baseUrl: server.url });
    expect(first.code, first.stderr).toBe(0);
    claudeId = first.result.session_id;
    trees.afterFirst = contents(project);
    // The person edits between the two prompts: a new file and a change to one Claude never touched.
    write(project, 'person.txt', 'mine\n');
    write(project, 'keep.txt', 'kept, and edited by the person\n');
    trees.personEdited = contents(project);
    const second = await runClaude('Now change a.txt and add b.txt', { cwd: project, home, baseUrl: server.url, resume: claudeId });
    expect(second.code, second.stderr).toBe(0);
    trees.afterSecond = contents(project);
    const status = fixture.waypoint('rewind', claudeId, 'status', '--json').json();
    prompts = status.targets.map((target: { messageId: string; text: string }) => ({ id: target.messageId, text: target.text }));
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    fixture.cleanup();
  });

  it("ran the scripted tools for real, kept the person's hooks, and logged no hook failure", () => {
    // Every scripted reply was used; when the background command ends after the second prompt's
    // Stop, Claude asks the model once more about its task notification (answered unscripted).
    expect(server.remaining).toBeLessThanOrEqual(0);
    expect(trees.afterFirst).toEqual({ 'a.txt': 'one\nTWO\n', 'e.txt': 'move me\n', 'keep.txt': 'kept\n' });
    expect(trees.afterSecond).toEqual({
      'a.txt': 'ONE\nTWO\n',
      'bg.txt': 'background\n',
      'e.txt': 'move me\n',
      'keep.txt': 'kept, and edited by the person\n',
      'person.txt': 'mine\n',
      'src/b.txt': 'b\n',
    });
    // Twice, or three times when the model was asked about the background command's notification.
    expect(readFileSync(join(fixture.dir, 'stop-marker'), 'utf8')).toMatch(/^(stopped\n){2,3}$/);
    const settings = JSON.parse(readFileSync(join(project, '.claude/settings.json'), 'utf8'));
    expect(settings.permissions).toEqual({ allow: ['Bash(ls:*)'] });
    expect(settings.hooks.Stop[0].hooks[0].command).toContain('stop-marker');
    const status = fixture.waypoint('hooks', 'status', '--json').json();
    expect(status.failures).toEqual([]);
    expect(status.events).toContain('PreToolUse');
  });

  it("records one session per Claude session, named by the Claude id, a turn per prompt, and only the agent's changes", () => {
    expect(prompts.map((prompt) => prompt.text)).toEqual(['Write a.txt, then tidy up with the shell', 'Now change a.txt and add b.txt']);
    const listed = fixture.waypoint('checkpoints', claudeId, '--json').json();
    const rows = (listed.checkpoints ?? listed).map((row: { op: string; path: string; source: string; anchorMessageId: string }) => [
      row.anchorMessageId === prompts[0]!.id ? 1 : 2,
      row.op,
      row.path.replace('workspace:', ''),
      row.source,
    ]);
    expect(rows.sort()).toEqual(
      [
        [1, 'create', 'a.txt', 'tool'],
        [1, 'modify', 'a.txt', 'exec'],
        [1, 'delete', 'c.txt', 'exec'],
        [1, 'delete', 'd.txt', 'exec'],
        [1, 'create', 'e.txt', 'exec'],
        [2, 'modify', 'a.txt', 'tool'],
        [2, 'create', 'bg.txt', 'exec'],
        [2, 'create', 'src/b.txt', 'tool'],
      ].sort(),
    );
    const shown = fixture.waypoint('show', claudeId).stdout;
    expect(shown).toContain('Done with the second request.');
    expect(shown).toContain('[tool-call Bash');
    expect(shown).not.toContain('system-reminder');
  });

  it("undoes the last prompt (checked, shell changes included), keeps the person's edits, and redoes it", () => {
    const undo = fixture.waypoint('rewind', claudeId, 'cascade', 'code', prompts[1]!.id, '--apply', '--include-shell', '--json');
    expect(undo.code, undo.stdout + undo.stderr).toBe(0);
    expect(contents(project)).toEqual(trees.personEdited);
    const redo = fixture.waypoint('redo', claudeId, undo.json().files.rewindId, '--json');
    expect(redo.code, redo.stderr).toBe(0);
    expect(contents(project)).toEqual(trees.afterSecond);
  });

  it('forks the files as they were at the second prompt into a new directory, leaving the project alone', () => {
    const before = contents(project);
    const target = join(fixture.dir, 'fork-at-second');
    const fork = fixture.waypoint('fork', claudeId, '--message', prompts[1]!.id, '--isolated', target, '--json');
    expect(fork.code, fork.stdout + fork.stderr).toBe(0);
    expect(contents(project)).toEqual(before);
    expect(contents(target)).toEqual(trees.personEdited);
  });

  it('refuses to overwrite a later edit of the person, then merges it or forces past it', () => {
    write(project, 'a.txt', 'ONE\nTWO\nthree, by the person\n');
    const edited = contents(project);
    const refused = fixture.waypoint('rewind', claudeId, 'cascade', 'code', prompts[1]!.id, '--apply', '--include-shell', '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('a.txt');
    expect(contents(project)).toEqual(edited);
    const merged = fixture.waypoint('rewind', claudeId, 'cascade', 'code', prompts[1]!.id, '--resolve', 'a.txt=merge', '--include-shell', '--json');
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(contents(project)).toEqual({ ...trees.personEdited, 'a.txt': 'one\nTWO\nthree, by the person\n' });
    // Cascade back to the first prompt, past the person's line in a.txt by force.
    const forced = fixture.waypoint('rewind', claudeId, 'cascade', 'code', prompts[0]!.id, '--resolve', 'a.txt=force', '--include-shell', '--json');
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(contents(project)).toEqual({ ...trees.start, 'keep.txt': 'kept, and edited by the person\n', 'person.txt': 'mine\n' });
    expect(existsSync(join(project, 'a.txt'))).toBe(false);
    // The forced overwrite is undoable: redo brings the person's a.txt back.
    const redo = fixture.waypoint('redo', claudeId, forced.json().files.rewindId, '--json');
    expect(redo.code, redo.stderr).toBe(0);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree, by the person\n');
  });
});
