import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { createCliFixture, snapshotTree, type CliFixture } from './cli-harness.js';
import { PtySession } from './pty-harness.js';

/**
 * `gc --keep-sessions` over session families: "Parser work" (two turns) with an empty stable fork
 * made after it, then a separate session "Other" made last. By creation order the newest two are
 * "Other" and the fork, so the old count deleted the busy main session and kept its empty fork.
 */
describe('waypoint gc --keep-sessions counts session families by last activity', () => {
  let fixture: CliFixture;
  let forkId: string;
  let otherId: string;
  beforeEach(async () => {
    fixture = await createCliFixture();
    forkId = fixture.cli('fork', fixture.sessionId, '--stable', fixture.first.replyId, '--json').json().session.id;
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      const other = await waypoint.history.createSession({ title: 'Other', workdir: fixture.project });
      await waypoint.history.append(other.id, { role: 'user', parts: [{ type: 'text', text: 'something else' }] });
      otherId = other.id;
    } finally {
      await waypoint.close();
    }
  });
  afterEach(() => fixture.cleanup());

  const sessions = () =>
    fixture
      .cli('sessions', '--json')
      .json()
      .sessions.map((session: { id: string }) => session.id)
      .sort();
  const ids = (report: { removedSessions: Array<{ id: string }> }) => report.removedSessions.map((session) => session.id).sort();

  it('keeps a main session with its fork, --dry-run lists exactly what would go, and without --yes it is refused listing them', async () => {
    const before = snapshotTree(fixture.dir);
    expect(ids(fixture.cli('gc', '--keep-sessions', '2', '--dry-run', '--json').json())).toEqual([]);
    const dry = fixture.cli('gc', '--keep-sessions', '1', '--dry-run', '--json').json();
    expect(ids(dry)).toEqual([fixture.sessionId, forkId].sort());
    expect(dry.removedSessions).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: forkId, kind: 'fork', familyId: fixture.sessionId, familyLastActivityAt: expect.any(Number) })]),
    );
    const text = fixture.cli('gc', '--keep-sessions', '1', '--dry-run').stdout;
    expect(text).toContain('Sessions: keeping the 1 most recently active session family; 2 sessions would be deleted:');
    expect(text).toMatch(new RegExp(`${fixture.sessionId}  main  "Parser work"  family last active`));
    expect(text).toMatch(new RegExp(`${forkId}  fork  `));

    const refused = fixture.cli('gc', '--keep-sessions', '1');
    expect(refused.code).toBe(4);
    expect(refused.stdout).toContain(`  ${fixture.sessionId}  main  "Parser work"`);
    expect(refused.stderr).toContain('--yes');
    const json = fixture.cli('gc', '--keep-sessions', '1', '--json');
    expect(json.code).toBe(4);
    expect(json.json().error).toMatchObject({ code: 'GC_NEEDS_CONFIRMATION' });
    expect(
      json
        .json()
        .error.details.sessions.map((session: { id: string }) => session.id)
        .sort(),
    ).toEqual(ids(dry));
    expect(snapshotTree(fixture.dir)).toEqual(before);

    // Once the main session is active again, its family is the one kept.
    const waypoint = await openWaypoint({ path: fixture.storePath });
    try {
      await waypoint.history.append(fixture.sessionId, { role: 'user', parts: [{ type: 'text', text: 'back to the parser' }] });
    } finally {
      await waypoint.close();
    }
    const yes = fixture.cli('gc', '--keep-sessions', '1', '--yes', '--json');
    expect(yes.code).toBe(0);
    expect(ids(yes.json())).toEqual([otherId]);
    expect(sessions()).toEqual([fixture.sessionId, forkId].sort());
  });

  it('on a terminal: lists the sessions and asks (y/N); no deletes nothing, yes deletes exactly those', async () => {
    const ask = async (answer: string) => {
      const pty = new PtySession(['gc', '--keep-sessions', '1'], { home: fixture.home, cwd: fixture.project });
      try {
        const screen = await pty.waitFor('Delete them? (y/N)');
        expect(screen).toContain('gc would delete 2 sessions:');
        expect(screen).toContain(`${fixture.sessionId}  main  "Parser work"`);
        expect(screen).toContain(`${forkId}  fork`);
        pty.line(answer);
        return { code: await pty.exit(), screen: pty.screen };
      } finally {
        pty.kill();
      }
    };
    const before = snapshotTree(fixture.dir);
    const declined = await ask('n');
    expect(declined.code).toBe(0);
    expect(declined.screen).toContain('gc cancelled; nothing was deleted.');
    expect(snapshotTree(fixture.dir)).toEqual(before);
    const accepted = await ask('y');
    expect(accepted.code).toBe(0);
    expect(accepted.screen).toContain('2 sessions deleted:');
    expect(sessions()).toEqual([otherId]);
  });
});
