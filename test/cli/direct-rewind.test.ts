import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, inspect, snapshotTree, type CliFixture } from './cli-harness.js';
import { PtySession } from './pty-harness.js';

const README_BEFORE = '# parser\n\nParses key=value lines.\n';
const README_AFTER = '# parser\n\nParses key=value lines; empty lines are skipped.\n';
const PERSON = `${README_AFTER}\nMaintained by the parser team.\n`;

/**
 * Direct rewinds that would overwrite what a person saved after the agent: asked on a terminal,
 * refused elsewhere unless --force, and `--preview` of each form shows what that form does.
 */
describe('waypoint rewind (direct forms) over a file changed since the agent wrote it', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
    // README.md is the agent's newest change (checkpoint 5); the person adds a line after it.
    writeFileSync(join(fixture.project, 'README.md'), PERSON);
  });
  afterEach(() => fixture.cleanup());

  const rewinds = () => inspect(fixture, (waypoint) => waypoint.files.listRewinds(fixture.sessionId));

  it('non-interactive: refused with REWIND_OVERWRITES_CHANGES (exit 4) listing the file, nothing changed; --force overwrites and redo brings it back', async () => {
    const before = snapshotTree(fixture.dir);
    for (const form of [['latest'], [fixture.checkpointIds[4]!], ['code', fixture.second.inputId], ['cascade', 'both', fixture.first.inputId]]) {
      const text = fixture.cli('rewind', fixture.sessionId, ...form);
      expect(text.code).toBe(4);
      expect(text.stdout).toContain('1 file changed since the agent wrote it');
      expect(text.stdout).toMatch(/^ {2}README\.md$/m);
      expect(text.stderr).toContain('waypoint: This rewind would overwrite a file changed since the agent wrote it: README.md.');
      expect(text.stderr).toContain('--force');
      const json = fixture.cli('rewind', fixture.sessionId, ...form, '--json');
      expect(json.code).toBe(4);
      expect(json.json().error).toMatchObject({ code: 'REWIND_OVERWRITES_CHANGES', details: { files: [{ path: 'workspace:README.md' }] } });
    }
    expect(snapshotTree(fixture.dir)).toEqual(before);

    const forced = fixture.cli('rewind', fixture.sessionId, 'latest', '--force', '--json');
    expect(forced.code).toBe(0);
    expect(forced.json().files.files).toEqual([expect.objectContaining({ path: 'workspace:README.md', resolution: 'force' })]);
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    expect(fixture.cli('redo', fixture.sessionId, forced.json().files.rewindId).code).toBe(0);
    expect(fixture.read('README.md')).toBe(PERSON);
  });

  it('--preview of every form shows exactly what that form does: the same changes, statuses and refusal', async () => {
    const forms = [
      ['latest'],
      [fixture.checkpointIds[0]!],
      ['code', fixture.second.inputId],
      ['both', fixture.second.inputId],
      ['conversation', fixture.second.inputId],
    ];
    for (const form of forms) {
      const before = snapshotTree(fixture.dir);
      const preview = fixture.cli('rewind', fixture.sessionId, ...form, '--preview', '--json');
      expect(preview.code, `${form.join(' ')}: ${preview.stdout}`).toBe(0);
      expect(snapshotTree(fixture.dir)).toEqual(before);
      const report = preview.json();
      const touchesReadme = report.files?.files.some((file: { path: string; action: string }) => file.path === 'workspace:README.md' && file.action !== 'none');
      const run = fixture.cli('rewind', fixture.sessionId, ...form, '--json');
      if (touchesReadme) {
        // The preview says the form would overwrite the person's line, and the form refuses.
        expect(report.files.canApply).toBe(false);
        expect(report.files.changed.map((file: { path: string }) => file.path)).toEqual(['workspace:README.md']);
        expect(run.code).toBe(4);
        expect(run.json().error.details.files).toEqual(report.files.changed);
        const forcedPreview = fixture.cli('rewind', fixture.sessionId, ...form, '--preview', '--force', '--json').json();
        expect(forcedPreview.files.canApply).toBe(true);
        const forced = fixture.cli('rewind', fixture.sessionId, ...form, '--force', '--json').json();
        expect(forced.files.checkpointIds).toEqual(forcedPreview.files.checkpointIds);
        expect(forced.files.files.map((file: { path: string }) => file.path).sort()).toEqual(
          forcedPreview.files.files
            .filter((file: { action: string }) => file.action !== 'none')
            .map((file: { path: string }) => file.path)
            .sort(),
        );
        expect(fixture.cli('redo', fixture.sessionId, forced.files.rewindId).code).toBe(0);
        if (forced.conversation) expect(fixture.cli('redo', fixture.sessionId).code).toBe(0);
      } else {
        expect(run.code, form.join(' ')).toBe(0);
        const result = run.json();
        expect(result.files?.checkpointIds ?? null).toEqual(report.files?.checkpointIds ?? null);
        expect(result.conversation?.targetMessageId ?? null).toEqual(report.conversation?.targetMessageId ?? null);
        if (report.conversation) expect(result.conversation.headMessageId).toBe(report.conversation.headMessageId);
        if (result.files) expect(fixture.cli('redo', fixture.sessionId, result.files.rewindId).code).toBe(0);
        if (result.conversation) expect(fixture.cli('redo', fixture.sessionId).code).toBe(0);
      }
    }
    // `code <second input>` takes that input's latest change only (README.md), not the cascade.
    const code = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--preview', '--json').json();
    expect(code.files.checkpointIds).toEqual([fixture.checkpointIds[4]]);
    const text = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--preview').stdout;
    expect(text).toMatch(/README\.md\s+external_modified\s+write\s+asks first/);
    expect(text).toContain(`waypoint rewind ${fixture.sessionId} code ${fixture.second.inputId} --force`);
    expect(fixture.read('README.md')).toBe(PERSON);
  });

  it('on a terminal: lists the file and asks (y/N); no changes nothing, yes overwrites and keeps it for redo', async () => {
    const ask = async (answer: string) => {
      const pty = new PtySession(['rewind', fixture.sessionId, 'latest'], { home: fixture.home, cwd: fixture.project });
      try {
        const screen = await pty.waitFor('Overwrite it? (y/N)');
        expect(screen).toContain('1 file changed since the agent wrote it');
        expect(screen).toMatch(/^ {2}README\.md$/m);
        pty.line(answer);
        return { code: await pty.exit(), screen: pty.screen };
      } finally {
        pty.kill();
      }
    };
    const before = snapshotTree(fixture.dir);
    const declined = await ask('n');
    expect(declined.code).toBe(0);
    expect(declined.screen).toContain('Rewind cancelled; nothing was changed.');
    expect(snapshotTree(fixture.dir)).toEqual(before);

    const accepted = await ask('y');
    expect(accepted.code).toBe(0);
    expect(accepted.screen).toContain('Restored 1 file (1 change undone):');
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    const [applied] = await rewinds();
    expect(applied!.files).toEqual([expect.objectContaining({ path: 'workspace:README.md', resolution: 'force' })]);
    expect(fixture.cli('redo', fixture.sessionId, applied!.rewindId).code).toBe(0);
    expect(fixture.read('README.md')).toBe(PERSON);
    expect(existsSync(join(fixture.project, 'test-results.txt'))).toBe(true);
  });
});
