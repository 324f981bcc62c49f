import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { createCliFixture, runCli, snapshotTree, type CliFixture } from './cli-harness.js';

describe('waypoint read commands (built CLI)', () => {
  let fixture: CliFixture;
  let before: Record<string, string>;
  beforeAll(async () => {
    fixture = await createCliFixture();
    before = snapshotTree(fixture.dir);
  });
  afterAll(() => {
    // Reading never writes: the store and the project are byte-identical after every read command.
    expect(snapshotTree(fixture.dir)).toEqual(before);
    fixture.cleanup();
  });

  it('sessions: a table with id, kind, title, created, head and turns; --json rows', () => {
    const text = fixture.cli('sessions');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+KIND\s+TITLE\s+CREATED\s+HEAD\s+TURNS/);
    expect(text.stdout).toContain(`${fixture.sessionId}  main  "Parser work"`);
    expect(text.stdout).toContain(`${fixture.second.replyId} (4 messages)  2`);
    const json = fixture.cli('sessions', '--json').json();
    expect(json.store).toBe(fixture.storePath);
    expect(json.sessions).toEqual([
      expect.objectContaining({
        id: fixture.sessionId,
        kind: 'main',
        title: 'Parser work',
        headMessageId: fixture.second.replyId,
        messages: 4,
        turns: 2,
        parentSessionId: null,
      }),
    ]);
    expect(typeof json.sessions[0].createdAt).toBe('number');
  });

  it('sessions on a store that does not exist lists nothing and creates nothing', () => {
    const run = runCli(['sessions', '--store', `${fixture.dir}/nowhere/w.db`, '--json'], { home: fixture.home });
    expect(run.code).toBe(0);
    expect(run.json().sessions).toEqual([]);
  });

  it('log: the family tree, marking the session asked for', () => {
    const run = fixture.cli('log', fixture.sessionId);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(`main  "Parser work"  ${fixture.sessionId}  2 turns, 5 changes  ← here`);
    const json = fixture.cli('log', fixture.sessionId, '--json').json();
    expect(json).toMatchObject({
      sessionId: fixture.sessionId,
      rootSessionId: fixture.sessionId,
      family: { session: { id: fixture.sessionId }, turns: 2, changes: 5, children: [] },
    });
  });

  it('show <session>: the visible conversation with message ids; --last; --json', () => {
    const run = fixture.cli('show', fixture.sessionId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`workdir  ${fixture.project}`);
    for (const id of [fixture.first.inputId, fixture.first.replyId, fixture.second.inputId, fixture.second.replyId]) expect(run.stdout).toContain(id);
    expect(run.stdout).toContain(`${fixture.first.inputId}  user`);
    expect(run.stdout).toContain('  Why does the parser choke on empty lines?');
    const last = fixture.cli('show', fixture.sessionId, '--last', '1', '--json').json();
    expect(last.type).toBe('session');
    expect(last.pathLength).toBe(4);
    expect(last.messages.map((message: { id: string }) => message.id)).toEqual([fixture.second.replyId]);
    expect(last.messages[0].parts).toEqual([{ type: 'text', text: 'Added the test, ran it, documented empty lines.' }]);
  });

  it("show <message>: one message in full, the sessions it is on, its turn's file changes", () => {
    const run = fixture.cli('show', fixture.second.inputId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`on the active path of: ${fixture.sessionId}`);
    expect(run.stdout).toContain('file changes of this turn (3):');
    expect(run.stdout).toContain('create test/parser.test.js');
    const json = fixture.cli('show', fixture.second.inputId, '--json').json();
    expect(json).toMatchObject({ type: 'message', message: { id: fixture.second.inputId, role: 'user', kind: 'input' }, onPathOf: [fixture.sessionId] });
    expect(json.checkpoints.map((checkpoint: { id: string }) => checkpoint.id)).toEqual(fixture.checkpointIds.slice(2));
  });

  it('checkpoints: newest first with op, path, tool, message; --limit; --json', () => {
    const run = fixture.cli('checkpoints', fixture.sessionId);
    expect(run.code).toBe(0);
    const rows = run.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^#\s+ID\s+OP\s+PATH\s+BY\s+MESSAGE/);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 5))).toEqual([
      ['5', fixture.checkpointIds[4], 'modify', 'README.md', 'Edit'],
      ['4', fixture.checkpointIds[3], 'create', 'test-results.txt', 'shell'],
      ['3', fixture.checkpointIds[2], 'create', 'test/parser.test.js', 'Write'],
      ['2', fixture.checkpointIds[1], 'create', 'assets/logo.bin', 'Write'],
      ['1', fixture.checkpointIds[0], 'modify', 'src/parser.js', 'Edit'],
    ]);
    const json = fixture.cli('checkpoints', fixture.sessionId, '--limit', '2', '--json').json();
    expect(json.limit).toBe(2);
    expect(
      json.checkpoints.map((checkpoint: { id: string; rewound: boolean; displayPath: string }) => [checkpoint.id, checkpoint.displayPath, checkpoint.rewound]),
    ).toEqual([
      [fixture.checkpointIds[4], 'README.md', false],
      [fixture.checkpointIds[3], 'test-results.txt', false],
    ]);
  });

  it('diff: the patch of a text change, computed from its contents', () => {
    const run = fixture.cli('diff', fixture.checkpointIds[4]!);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('#5 modify README.md');
    expect(run.stdout).toContain('-Parses key=value lines.\n+Parses key=value lines; empty lines are skipped.');
    const json = fixture.cli('diff', fixture.checkpointIds[4]!, '--json').json();
    expect(json).toMatchObject({ patchSource: 'computed', binary: false, checkpoint: { id: fixture.checkpointIds[4], op: 'modify' } });
  });

  it('diff: a binary file is described, not diffed', () => {
    const run = fixture.cli('diff', fixture.checkpointIds[1]!);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('# binary file created: absent → 8 B');
    expect(fixture.cli('diff', fixture.checkpointIds[1]!, '--json').json()).toMatchObject({ binary: true, patch: null, afterSize: 8 });
  });

  it('--help prints the full reference; <command> --help one command; --version', () => {
    const help = fixture.cli('--help');
    expect(help.code).toBe(0);
    for (const name of [
      'sessions',
      'log <session>',
      'show <session>',
      'checkpoints <session>',
      'diff <checkpoint>',
      'rewind <session> cascade',
      'fork <session>',
      'redo <session>',
      'gc [--dry-run]',
      'usage',
      'demo',
      'Exit codes:',
    ]) {
      expect(help.stdout).toContain(name);
    }
    const rewind = fixture.cli('rewind', '--help');
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toContain('waypoint rewind <session> both <messageId>');
    expect(rewind.stdout).toContain('--resolve <path=merge|force|skip>');
    expect(fixture.cli('--version').stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('waypoint diff without a stored patch', () => {
  it('computes the unified diff from the before/after contents', async () => {
    const fixture = await createCliFixture();
    try {
      const waypoint = await openWaypoint({ path: fixture.storePath });
      let checkpointId: string;
      try {
        const beforeHash = await waypoint.blobs.put(Buffer.from('one\ntwo\nthree\n'));
        const afterHash = await waypoint.blobs.put(Buffer.from('one\n2\nthree\n'), { baseHash: beforeHash });
        const [checkpoint] = await waypoint.store.addCheckpoints([
          { sessionId: fixture.sessionId, op: 'modify', path: 'workspace:notes.txt', beforeHash, afterHash, patch: null, source: 'fs' },
        ]);
        checkpointId = checkpoint!.id;
      } finally {
        await waypoint.close();
      }
      const run = fixture.cli('diff', checkpointId);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt');
      expect(run.stdout).toContain(' one\n-two\n+2\n three');
      expect(fixture.cli('diff', checkpointId, '--json').json().patchSource).toBe('computed');
    } finally {
      fixture.cleanup();
    }
  });
});
