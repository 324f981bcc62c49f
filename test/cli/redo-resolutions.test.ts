import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, snapshotTree, type CliFixture } from './cli-harness.js';

const README_BEFORE = '# parser\n\nParses key=value lines.\n';
const README_AFTER = '# parser\n\nParses key=value lines; empty lines are skipped.\n';
const PERSON_LINE = '\nMaintained by the parser team.\n';

/** `waypoint redo` over a file the person edited after the rewind: the undo's choices, previewed first. */
describe('waypoint redo accepts the same resolutions as undo', () => {
  let fixture: CliFixture;
  let rewindId: string;
  beforeEach(async () => {
    fixture = await createCliFixture();
    rewindId = fixture.cli('rewind', fixture.sessionId, 'latest', '--json').json().files.rewindId;
    // After the rewind put README.md back, the person adds a line to it.
    writeFileSync(join(fixture.project, 'README.md'), README_BEFORE + PERSON_LINE);
  });
  afterEach(() => fixture.cleanup());

  it("--preview shows the conflict and the merged text; --resolve =merge keeps the person's line, =force overwrites (kept for redo)", () => {
    const before = snapshotTree(fixture.dir);
    const refused = fixture.cli('redo', fixture.sessionId, rewindId, '--json');
    expect(refused.code).toBe(4);
    expect(refused.json().error.code).toBe('REWIND_CONFLICT');
    const preview = fixture.cli('redo', fixture.sessionId, rewindId, '--preview', '--json');
    expect(preview.code).toBe(0);
    expect(preview.json()).toMatchObject({
      type: 'redo-preview',
      canApply: false,
      files: [{ path: 'workspace:README.md', status: 'external_modified', mergeAvailable: true, mergedText: README_AFTER + PERSON_LINE, resolution: null }],
    });
    const text = fixture.cli('redo', fixture.sessionId, rewindId, '--preview').stdout;
    expect(text).toMatch(/README\.md\s+external_modified\s+none\s+merge available/);
    expect(text).toContain(`Redo with: waypoint redo ${fixture.sessionId} ${rewindId} --resolve README.md=merge`);
    expect(snapshotTree(fixture.dir)).toEqual(before);

    const merged = fixture.cli('redo', fixture.sessionId, rewindId, '--resolve', 'README.md=merge', '--json');
    expect(merged.code).toBe(0);
    expect(merged.json().result.files).toEqual([expect.objectContaining({ path: 'workspace:README.md', resolution: 'merge' })]);
    expect(fixture.read('README.md')).toBe(README_AFTER + PERSON_LINE);

    // The redo is a rewind too: redo it (the file is as that redo left it), then force the original redo over a new edit.
    expect(fixture.cli('redo', fixture.sessionId, merged.json().result.rewindId).code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_BEFORE + PERSON_LINE);
  });

  it('=force overwrites the later edit, which a redo of the redo brings back', () => {
    const forced = fixture.cli('redo', fixture.sessionId, rewindId, '--resolve', 'README.md=force', '--json');
    expect(forced.code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_AFTER);
    expect(fixture.cli('redo', fixture.sessionId, forced.json().result.rewindId).code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_BEFORE + PERSON_LINE);
  });
});
