import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIP_REASON, adminQuery, dropSchema, freshSchema, postgresAvailable, schemaUrl } from '../postgres/pg-test-env.js';
import { runClaude } from './claude/claude-harness.js';
import { MessagesServer } from './claude/messages-server.js';
import { contents, createProject } from './claude/project-fixture.js';
import { runCodex, writeCodexConfig } from './codex/codex-harness.js';
import { ResponsesServer } from './codex/responses-server.js';

/**
 * The real Claude Code and Codex CLI binaries recording into a PostgreSQL store: the hooks are
 * installed with `--store postgres://…` (Claude) or `$WAYPOINT_STORE` (Codex), under a role whose
 * password appears nowhere but in the one file only its owner can read; then the CLI lists, shows
 * and undoes the agent's prompts from that store, the files checked on disk.
 */
if (postgresAvailable()) {
  describe('Claude Code and Codex CLI hooks recording into a PostgreSQL store (real binaries)', () => {
    const role = `wpt_hooks_${randomBytes(4).toString('hex')}`;
    const password = `pw${randomBytes(9).toString('hex')}`;
    const schema = freshSchema();
    let url = '';

    beforeAll(async () => {
      await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      const db = (await adminQuery<{ db: string }>('SELECT current_database() AS db'))[0]!.db;
      await adminQuery(`GRANT CREATE ON DATABASE "${db}" TO ${role}`);
      const base = new URL(schemaUrl(schema));
      base.username = role;
      base.password = password;
      url = base.toString();
    });

    afterAll(async () => {
      // The schema is the new role's: the test role joins it to drop what it owns.
      await adminQuery(`GRANT ${role} TO CURRENT_USER`);
      await dropSchema(schema);
      const db = (await adminQuery<{ db: string }>('SELECT current_database() AS db'))[0]!.db;
      await adminQuery(`REVOKE CREATE ON DATABASE "${db}" FROM ${role}`);
      await adminQuery(`DROP OWNED BY ${role}`);
      await adminQuery(`DROP ROLE ${role}`);
    });

    /** The store's URL file: only its owner reads it, and it holds the URL. */
    const expectPrivateUrlFile = (file: string) => {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
      expect(readFileSync(file, 'utf8').trim()).toBe(url);
    };

    it('Claude Code: `hooks install claude --store postgres://…` writes no password, and two prompts are recorded there, listed, shown and undone', async () => {
      const fixture = createProject({ 'keep.txt': 'kept\n' });
      const server = await MessagesServer.start([
        { text: 'Writing a.txt.', tools: [{ name: 'Write', input: { file_path: join(fixture.project, 'a.txt'), content: 'one\n' } }] },
        { text: 'Done with the first.' },
        { tools: [{ name: 'Bash', input: { command: "sed -i 's/one/ONE/' a.txt && rm keep.txt", description: 'edit and delete' } }] },
        { text: 'Done with the second.' },
      ]);
      try {
        const install = fixture.waypoint('hooks', 'install', 'claude', '--store', url);
        expect(install.code, install.stderr).toBe(0);
        const settings = readFileSync(join(fixture.project, '.claude', 'settings.json'), 'utf8');
        for (const shown of [install.stdout, install.stderr, settings]) {
          expect(shown).not.toContain(password);
          expect(shown).not.toContain('postgres://');
        }
        const urlFile = /--store-file ([^\s"]+)/.exec(settings)![1]!;
        expectPrivateUrlFile(urlFile);
        expect(install.stdout).toContain(urlFile);

        const first = await runClaude('Write a.txt', { cwd: fixture.project, home: fixture.home, baseUrl: server.url, timeoutMs: 120_000 });
        expect(first.code, first.stderr).toBe(0);
        const claudeId: string = first.result.session_id;
        const afterFirst = contents(fixture.project);
        const second = await runClaude('Tidy with the shell', {
          cwd: fixture.project,
          home: fixture.home,
          baseUrl: server.url,
          resume: claudeId,
          timeoutMs: 120_000,
        });
        expect(second.code, second.stderr).toBe(0);
        expect(contents(fixture.project)).toEqual({ 'a.txt': 'ONE\n' });

        // Nothing went to the default file store; everything is in the database.
        expect(existsSync(fixture.storePath)).toBe(false);
        const status = fixture.waypoint('hooks', 'status', '--store', url, '--json').json();
        expect(status.failures).toEqual([]);
        const targets = fixture.waypoint('rewind', claudeId, 'status', '--store', url, '--json').json().targets;
        expect(targets.map((target: { text: string }) => target.text)).toEqual(['Write a.txt', 'Tidy with the shell']);
        const shown = fixture.waypoint('show', claudeId, '--store', url);
        expect(shown.stdout).toContain('Writing a.txt.');
        expect(shown.stdout).toContain('Done with the second.');
        const undo = fixture.waypoint('rewind', claudeId, 'cascade', 'code', targets[1].messageId, '--apply', '--include-shell', '--store', url, '--json');
        expect(undo.code, undo.stdout + undo.stderr).toBe(0);
        expect(contents(fixture.project)).toEqual(afterFirst);
      } finally {
        await server.close();
        fixture.cleanup();
      }
    }, 600_000);

    it('Codex CLI: `hooks install codex` with $WAYPOINT_STORE writes no password, and its prompts and conversation are recorded there', async () => {
      const fixture = createProject({ 'a.txt': 'hello\n' });
      const codexHome = join(fixture.home, '.codex');
      const server = await ResponsesServer.start({
        'Patch it': [
          [
            { type: 'message', text: 'Patching.' },
            { type: 'apply_patch', patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+patched\n*** End Patch\n' },
          ],
          [{ type: 'message', text: 'Patched.' }],
        ],
        'Add a file': [[{ type: 'shell', cmd: "printf 'new\\n' > b.txt" }], [{ type: 'message', text: 'Added.' }]],
      });
      try {
        writeCodexConfig(codexHome, server.url);
        const install = fixture.waypoint('hooks', 'install', 'codex', '--scope', 'user', { WAYPOINT_STORE: url });
        expect(install.code, install.stderr).toBe(0);
        const hooksFile = readFileSync(join(codexHome, 'hooks.json'), 'utf8');
        for (const shown of [install.stdout, install.stderr, hooksFile]) {
          expect(shown).not.toContain(password);
          expect(shown).not.toContain('postgres://');
        }
        expectPrivateUrlFile(/--store-file ([^\s"]+)/.exec(hooksFile)![1]!);

        const first = await runCodex('Patch it', { cwd: fixture.project, home: fixture.home, codexHome });
        expect(first.code, first.stderr).toBe(0);
        const codexId = first.sessionId!;
        const afterFirst = contents(fixture.project);
        const second = await runCodex('Add a file', { cwd: fixture.project, home: fixture.home, codexHome, resume: codexId });
        expect(second.code, second.stderr).toBe(0);
        expect(contents(fixture.project)).toEqual({ 'a.txt': 'patched\n', 'b.txt': 'new\n' });

        expect(existsSync(fixture.storePath)).toBe(false);
        const env = { WAYPOINT_STORE: url };
        const status = fixture.waypoint('hooks', 'status', '--scope', 'user', '--json', env).json();
        expect(status.agents.find((agent: { agent: string }) => agent.agent === 'codex').failures).toEqual([]);
        const targets = fixture.waypoint('rewind', codexId, 'status', '--json', env).json().targets;
        expect(targets.map((target: { text: string }) => target.text)).toEqual(['Patch it', 'Add a file']);
        const shown = fixture.waypoint('show', codexId, env).stdout;
        for (const text of ['Patching.', '[tool-call apply_patch', 'Patched.', '[tool-call exec_command', 'Added.']) expect(shown).toContain(text);
        const undo = fixture.waypoint('rewind', codexId, 'cascade', 'code', targets[1].messageId, '--apply', '--include-shell', '--json', env);
        expect(undo.code, undo.stdout + undo.stderr).toBe(0);
        expect(contents(fixture.project)).toEqual(afterFirst);
      } finally {
        await server.close();
        fixture.cleanup();
      }
    }, 600_000);
  });
} else {
  describe.skip(`hooks recording into a PostgreSQL store — skipped: ${SKIP_REASON}`, () => {});
}
