import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaude } from './claude-harness.js';
import { MessagesServer } from './messages-server.js';
import { contents, createProject } from './project-fixture.js';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');

/**
 * The real Claude Code binary as an MCP client of `waypoint mcp` (`--mcp-config`, no hooks): the
 * scripted model groups its calls into a turn, changes files through Waypoint's write and bash
 * tools, then undoes the turn with Waypoint's own verb. Checked on disk, in the store, and by what
 * the model server was sent back.
 */
describe('Claude Code as an MCP client of waypoint mcp (real binary)', () => {
  const fixture = createProject({ 'keep.txt': 'kept\n' });
  const { project, home, dir } = fixture;
  let server: MessagesServer | null = null;

  afterAll(async () => {
    await server?.close();
    fixture.cleanup();
  });

  it('runs Waypoint tools, and their undo puts every file back', async () => {
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { waypoint: { command: process.execPath, args: [BIN, 'mcp', '--dir', project] } } }));
    server = await MessagesServer.start([
      { tools: [{ name: 'mcp__waypoint__begin_turn', input: { input: 'Write the notes and drop keep.txt' } }] },
      { tools: [{ name: 'mcp__waypoint__write', input: { path: 'notes.md', content: 'one\n' } }] },
      { tools: [{ name: 'mcp__waypoint__bash', input: { command: 'echo two >> notes.md && rm keep.txt' } }] },
      { tools: [{ name: 'mcp__waypoint__end_turn', input: { reply: 'Wrote the notes.' } }] },
      { tools: [{ name: 'mcp__waypoint__list_changes', input: {} }] },
      { tools: [{ name: 'mcp__waypoint__undo', input: {} }] },
      { text: 'Undone.' },
    ]);
    const start = contents(project);
    const run = await runClaude('Write the notes, then undo it', {
      cwd: project,
      home,
      baseUrl: server.url,
      allowedTools: 'mcp__waypoint',
      extraArgs: ['--mcp-config', config, '--strict-mcp-config'],
      timeoutMs: 90_000,
      // Every tool in the first request, MCP ones too (not loaded later through Claude's tool search).
      env: { ENABLE_TOOL_SEARCH: 'false' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.remaining).toBe(0);
    // The model was offered Waypoint's tools, and got each result back.
    const offered = (server.loopRequests()[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__waypoint__write', 'mcp__waypoint__bash', 'mcp__waypoint__undo', 'mcp__waypoint__begin_turn']));
    const results = server
      .loopRequests()
      .at(-1)!
      .body.messages.flatMap((message: { content: unknown }) => (Array.isArray(message.content) ? message.content : []))
      .filter((block: { type: string }) => block.type === 'tool_result')
      .map((block: { content: unknown }) => JSON.stringify(block.content));
    expect(results).toHaveLength(6);
    // Claude passes the structured content on to the model: the turn's files, the listed input, what the undo did.
    expect(results[3]).toMatch(/notes\.md[\s\S]*keep\.txt|keep\.txt[\s\S]*notes\.md/);
    expect(results[4]).toContain('Write the notes and drop keep.txt');
    expect(results[5]).toMatch(/rewindId[\s\S]*keep\.txt|keep\.txt[\s\S]*rewindId/);
    expect(results[5]).not.toMatch(/REWIND_CONFLICT|isError/);
    // The undo put every file back, byte for byte.
    expect(contents(project)).toEqual(start);
    // The session is Waypoint's: the CLI in another terminal lists it and can redo the undo.
    const sessions = fixture.waypoint('sessions', '--json').json().sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0].title).toMatch(/^MCP: /);
    const status = fixture.waypoint('rewind', sessions[0].id, 'status', '--json').json();
    const redo = fixture.waypoint('redo', sessions[0].id, status.redo.fileRewinds[0].rewindId);
    expect(redo.code, redo.stderr).toBe(0);
    expect(contents(project)).toEqual({ 'notes.md': 'one\ntwo\n' });
  }, 150_000);
});
