import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolEdit, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { createCliFixture, inspect, PARSER, snapshotTree, type CliFixture } from './cli-harness.js';

const README_BEFORE = '# parser\n\nParses key=value lines.\n';
const README_AFTER = '# parser\n\nParses key=value lines; empty lines are skipped.\n';
const PERSON_LINE = '\nMaintained by the parser team.\n';

describe('waypoint rewind: every form (built CLI)', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
  });
  afterEach(() => fixture.cleanup());

  const head = () => inspect(fixture, async (waypoint) => (await waypoint.store.getSession(fixture.sessionId)).headMessageId);

  it('status, help and -h show the latest checkpoint, the rewind targets and the forms, changing nothing', () => {
    const before = snapshotTree(fixture.dir);
    for (const form of ['status', 'help', '-h']) {
      const run = fixture.cli('rewind', fixture.sessionId, form);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Latest checkpoint: #5 ${fixture.checkpointIds[4]}  modify README.md  by Edit`);
      expect(run.stdout).toContain(`${fixture.first.inputId}  "Why does the parser choke on empty lines?"     2 file changes`);
      expect(run.stdout).toContain(`waypoint rewind ${fixture.sessionId} cascade <scope> <messageId>`);
    }
    expect(fixture.cli('rewind', fixture.sessionId).stdout).toContain('Latest checkpoint: #5');
    const json = fixture.cli('rewind', fixture.sessionId, 'status', '--json').json();
    expect(json).toMatchObject({
      type: 'status',
      sessionId: fixture.sessionId,
      checkpointCount: 5,
      latestCheckpoint: { id: fixture.checkpointIds[4], displayPath: 'README.md' },
      redo: { conversation: null, fileRewinds: [] },
    });
    expect(json.targets.map((target: { messageId: string; fileChanges: number }) => [target.messageId, target.fileChanges])).toEqual([
      [fixture.first.inputId, 2],
      [fixture.second.inputId, 3],
    ]);
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  it("latest restores the newest checkpoint's file; the next latest is the one before; redo <id> puts it back", () => {
    const run = fixture.cli('rewind', fixture.sessionId, 'latest');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Restored 1 file (1 change undone):');
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    const rewindId = /waypoint redo \S+ (jnl_\w+)/.exec(run.stdout)![1]!;
    const status = fixture.cli('rewind', fixture.sessionId, 'status', '--json').json();
    expect(status.latestCheckpoint.id).toBe(fixture.checkpointIds[3]);
    expect(status.redo.fileRewinds).toEqual([expect.objectContaining({ rewindId, kind: 'checkpoint', files: 1 })]);
    const redo = fixture.cli('redo', fixture.sessionId, rewindId, '--json');
    expect(redo.code).toBe(0);
    expect(redo.json()).toMatchObject({ type: 'files', rewindId, result: { kind: 'redo', files: [{ path: 'workspace:README.md' }] } });
    expect(fixture.read('README.md')).toBe(README_AFTER);
  });

  it("<checkpointId> restores that checkpoint's file (--json reports the rewind)", () => {
    const run = fixture.cli('rewind', fixture.sessionId, fixture.checkpointIds[0]!, '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      type: 'rewind',
      form: { kind: 'checkpoint', checkpointId: fixture.checkpointIds[0] },
      conversation: null,
      files: { kind: 'checkpoint', checkpointIds: [fixture.checkpointIds[0]], files: [{ path: 'workspace:src/parser.js', resolution: null }] },
    });
    expect(fixture.read('src/parser.js')).toBe(PARSER);
    expect(fixture.read('README.md')).toBe(README_AFTER);
  });

  it('conversation|message <id> moves the head to before the input, hands the input back, and redo returns', async () => {
    const run = fixture.cli('rewind', fixture.sessionId, 'conversation', fixture.second.inputId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Your input, to edit and send again: "Add a test, run it, and document the format."');
    expect(await head()).toBe(fixture.first.replyId);
    expect(fixture.read('README.md')).toBe(README_AFTER);
    expect(fixture.cli('show', fixture.sessionId, '--json').json().messages).toHaveLength(2);
    expect(fixture.cli('redo', fixture.sessionId).code).toBe(0);
    expect(await head()).toBe(fixture.second.replyId);
    // `message` is the same form; a reply maps to its turn's input for a conversation-only rewind.
    const alias = fixture.cli('rewind', fixture.sessionId, 'message', fixture.second.replyId, '--json');
    expect(alias.code).toBe(0);
    expect(alias.json()).toMatchObject({
      conversation: { targetMessageId: fixture.second.inputId, headMessageId: fixture.first.replyId, draft: 'Add a test, run it, and document the format.' },
      files: null,
    });
  });

  it("code|workspace <id> restores the latest file change of that input's turn only", async () => {
    const run = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId);
    expect(run.code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    expect(existsSync(join(fixture.project, 'test', 'parser.test.js'))).toBe(true);
    expect(await head()).toBe(fixture.second.replyId);
    const alias = fixture.cli('rewind', fixture.sessionId, 'workspace', fixture.first.inputId, '--json');
    expect(alias.code).toBe(0);
    expect(alias.json().files.checkpointIds).toEqual([fixture.checkpointIds[1]]);
    expect(existsSync(join(fixture.project, 'assets', 'logo.bin'))).toBe(false);
  });

  it('both <id> restores the files, then rewinds the conversation', async () => {
    const run = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      conversation: { targetMessageId: fixture.second.inputId, headMessageId: fixture.first.replyId },
      files: { checkpointIds: [fixture.checkpointIds[4]] },
    });
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    expect(await head()).toBe(fixture.first.replyId);
  });

  it('cascade code <id> undoes every change from that input on, newest first; the conversation stays', async () => {
    const run = fixture.cli('rewind', fixture.sessionId, 'cascade', 'code', fixture.first.inputId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Restored 5 files (5 changes undone):');
    expect(fixture.read('src/parser.js')).toBe(PARSER);
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    for (const gone of ['assets/logo.bin', 'test/parser.test.js', 'test-results.txt']) expect(existsSync(join(fixture.project, gone))).toBe(false);
    expect(await head()).toBe(fixture.second.replyId);
  });

  it('cascade both <first input> leaves an empty history in the same session; cascade conversation moves the head only', async () => {
    const both = fixture.cli('rewind', fixture.sessionId, 'cascade', 'both', fixture.first.inputId);
    expect(both.code).toBe(0);
    expect(await head()).toBeNull();
    expect(fixture.read('src/parser.js')).toBe(PARSER);
    expect(fixture.cli('show', fixture.sessionId).stdout).toContain('(no messages to show)');
    expect(fixture.cli('redo', fixture.sessionId).code).toBe(0);
    const conversation = fixture.cli('rewind', fixture.sessionId, 'cascade', 'conversation', fixture.second.inputId);
    expect(conversation.code).toBe(0);
    expect(await head()).toBe(fixture.first.replyId);
    expect(fixture.read('src/parser.js')).toBe(PARSER);
  });

  describe('after a person edited a file the agent changed', () => {
    beforeEach(() => writeFileSync(join(fixture.project, 'README.md'), README_AFTER + PERSON_LINE));

    it('--apply --preview shows statuses, merge availability and what the merge changes, and changes nothing', () => {
      const before = snapshotTree(fixture.dir);
      const run = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--apply', '--preview');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/README\.md\s+external_modified\s+none\s+merge available/);
      expect(run.stdout).toContain('with --resolve README.md=merge, the file as it is now changes:');
      expect(run.stdout).toContain('      -Parses key=value lines; empty lines are skipped.\n      +Parses key=value lines.\n');
      expect(run.stdout).toMatch(/test\/parser\.test\.js\s+safe\s+delete/);
      expect(run.stdout).toContain('add --include-shell to undo them too');
      expect(run.stdout).toContain(`Apply with: waypoint rewind ${fixture.sessionId} both ${fixture.second.inputId} --apply --resolve README.md=merge`);
      const preview = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--apply', '--preview', '--json').json().preview;
      expect(preview.canApply).toBe(false);
      expect(preview.files.find((file: { path: string }) => file.path === 'workspace:README.md')).toMatchObject({
        status: 'external_modified',
        mergeAvailable: true,
        mergedText: README_BEFORE + PERSON_LINE,
      });
      expect(preview.shellChanges).toEqual([expect.objectContaining({ checkpointId: fixture.checkpointIds[3], included: false })]);
      expect(snapshotTree(fixture.dir)).toEqual(before);
    });

    it('--apply is refused with the conflict (exit 4) and changes nothing', async () => {
      const before = snapshotTree(fixture.dir);
      const run = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--apply');
      expect(run.code).toBe(4);
      expect(run.stdout).toContain('can apply: no');
      expect(run.stderr).toContain('waypoint: Cannot rewind files: workspace:README.md (external_modified');
      const json = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--apply', '--json');
      expect(json.code).toBe(4);
      expect(json.json().error.code).toBe('REWIND_CONFLICT');
      expect(snapshotTree(fixture.dir)).toEqual(before);
      expect(await head()).toBe(fixture.second.replyId);
    });

    it("--resolve <path>=merge applies, keeping the person's line, and moves the head in the same commit", async () => {
      const run = fixture.cli('rewind', fixture.sessionId, 'both', fixture.second.inputId, '--resolve', 'README.md=merge');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/README\.md\s+restored\s+\(merge\)/);
      expect(fixture.read('README.md')).toBe(README_BEFORE + PERSON_LINE);
      expect(existsSync(join(fixture.project, 'test', 'parser.test.js'))).toBe(false);
      expect(existsSync(join(fixture.project, 'test-results.txt'))).toBe(true);
      expect(await head()).toBe(fixture.first.replyId);
    });

    it('--resolve <path>=force --include-shell overwrites (shell changes too); redo brings back what was there', async () => {
      const run = fixture.cli(
        'rewind',
        fixture.sessionId,
        'cascade',
        'code',
        fixture.second.inputId,
        '--resolve',
        'README.md=force',
        '--include-shell',
        '--json',
      );
      expect(run.code).toBe(0);
      const report = run.json();
      expect(report).toMatchObject({
        checked: true,
        conversation: null,
        preview: { includeShellChanges: true, resolutions: { 'workspace:README.md': 'force' } },
      });
      expect(fixture.read('README.md')).toBe(README_BEFORE);
      expect(existsSync(join(fixture.project, 'test-results.txt'))).toBe(false);
      expect(await head()).toBe(fixture.second.replyId);
      expect(fixture.cli('redo', fixture.sessionId, report.files.rewindId).code).toBe(0);
      expect(fixture.read('README.md')).toBe(README_AFTER + PERSON_LINE);
      expect(existsSync(join(fixture.project, 'test-results.txt'))).toBe(true);
    });
  });

  it('--resolve <path>=force with an older snapshot of that file unreadable: refused (SNAPSHOT_MISSING), files and ledger unchanged', async () => {
    // A third turn edits README.md again, so the file has two layers; then the oldest one's content is lost.
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      const input = await waypoint.history.append(fixture.sessionId, { role: 'user', parts: [{ type: 'text', text: 'Say more in the README.' }] });
      const record = await waypoint.store.createTurn({ sessionId: fixture.sessionId, userMessageId: input.id });
      const capture = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: fixture.sessionId, turnId: record.id });
      await applyToolEdit(capture, { path: 'README.md', oldString: 'are skipped.', newString: 'are skipped, and comments too.', toolCallId: 'call_5' });
      await waypoint.store.blobs.deleteMany([hashContent(Buffer.from(README_BEFORE))]);
    } finally {
      await waypoint.close();
    }
    writeFileSync(join(fixture.project, 'README.md'), 'the person rewrote it\n');
    const before = snapshotTree(fixture.dir);
    const args = ['rewind', fixture.sessionId, 'cascade', 'code', fixture.second.inputId, '--resolve', 'README.md=force'];
    const preview = fixture.cli(...args, '--preview', '--json').json().preview;
    expect(preview.canApply).toBe(false);
    const readme = preview.files.find((file: { path: string }) => file.path === 'workspace:README.md');
    expect(readme).toMatchObject({ status: expect.stringMatching(/^checkpoint_(missing|unreadable)$/), resolution: null });
    const run = fixture.cli(...args, '--apply', '--json');
    // Gone: exit 4; still there but undecodable (a delta whose base was lost): corrupt content, exit 6.
    expect(run.code).toBe(readme.status === 'checkpoint_unreadable' ? 6 : 4);
    expect(run.json().error).toMatchObject({ code: 'SNAPSHOT_MISSING' });
    expect(run.json().error.message).toContain('workspace:README.md');
    expect(snapshotTree(fixture.dir)).toEqual(before);
    expect(await inspect(fixture, (opened) => opened.files.listRewinds(fixture.sessionId))).toEqual([]);
  });

  describe('bad input gives the typed error and changes nothing', () => {
    const cases: Array<[string, (f: CliFixture) => string[], number, string]> = [
      ['unknown session', () => ['rewind', 'ses_00000000000000000000000000', 'latest'], 3, 'SESSION_NOT_FOUND'],
      ['unknown checkpoint', (f) => ['rewind', f.sessionId, 'chk_00000000000000000000000000'], 3, 'CHECKPOINT_NOT_FOUND'],
      ['unknown message', (f) => ['rewind', f.sessionId, 'both', 'msg_00000000000000000000000000'], 3, 'MESSAGE_NOT_FOUND'],
      ['a form missing its message', (f) => ['rewind', f.sessionId, 'both'], 2, 'USAGE'],
      ['an unknown cascade scope', (f) => ['rewind', f.sessionId, 'cascade', 'sideways', f.second.inputId], 2, 'USAGE'],
      ['too many arguments', (f) => ['rewind', f.sessionId, 'latest', 'now'], 2, 'USAGE'],
      ['a message id without a scope', (f) => ['rewind', f.sessionId, f.second.inputId], 2, 'USAGE'],
      ['--apply on a conversation rewind', (f) => ['rewind', f.sessionId, 'conversation', f.second.inputId, '--apply'], 2, 'USAGE'],
      ['--force with --apply', (f) => ['rewind', f.sessionId, 'code', f.second.inputId, '--apply', '--force'], 2, 'USAGE'],
      ['a malformed --resolve', (f) => ['rewind', f.sessionId, 'both', f.second.inputId, '--resolve', 'README.md'], 2, 'USAGE'],
      ['an unknown option', (f) => ['rewind', f.sessionId, 'latest', '--hard'], 2, 'USAGE'],
      ['a reply where both needs an input', (f) => ['rewind', f.sessionId, 'both', f.second.replyId], 2, 'REWIND_TARGET_NOT_USER_INPUT'],
      [
        'a resolution for a file the rewind does not touch',
        (f) => ['rewind', f.sessionId, 'both', f.second.inputId, '--resolve', 'nope.txt=force'],
        2,
        'RESOLUTION_UNKNOWN_PATH',
      ],
    ];
    for (const [name, args, exitCode, code] of cases) {
      it(name, () => {
        const before = snapshotTree(fixture.dir);
        const text = fixture.cli(...args(fixture));
        expect(text.code).toBe(exitCode);
        expect(text.stderr).toMatch(/^waypoint: /);
        const json = fixture.cli(...args(fixture), '--json');
        expect(json.code).toBe(exitCode);
        expect(json.json()).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) } });
        expect(snapshotTree(fixture.dir)).toEqual(before);
      });
    }

    it('a missing workspace: WORKSPACE_MISSING for file rewinds, nothing recreated', () => {
      renameSync(fixture.project, `${fixture.project}-moved`);
      const before = snapshotTree(fixture.dir);
      for (const args of [
        ['latest'],
        ['code', fixture.second.inputId],
        ['both', fixture.second.inputId, '--preview'],
        ['cascade', 'both', fixture.first.inputId],
      ]) {
        const run = fixture.cli('rewind', fixture.sessionId, ...args, '--json');
        expect(run.code).toBe(4);
        expect(run.json().error).toMatchObject({ code: 'WORKSPACE_MISSING', details: { workdir: fixture.project } });
      }
      expect(existsSync(fixture.project)).toBe(false);
      expect(snapshotTree(fixture.dir)).toEqual(before);
    });
  });
});
