import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, snapshotTree } from './cli-harness.js';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'waypoint.js');

interface Served {
  client: Client;
  home: string;
  dir: string;
  close(): Promise<void>;
}

const open: Served[] = [];
afterEach(async () => {
  for (const served of open.splice(0)) await served.close();
});

/** Starts `waypoint mcp` as a client would (a child process on stdio) and connects the SDK's own client to it. */
async function serve(options: { home?: string; dir?: string; args?: string[] } = {}): Promise<Served> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'wp-mcp-'));
  const dir = options.dir ?? join(home, 'project');
  mkdirSync(dir, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...(options.args ?? ['--dir', dir])],
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: home, WAYPOINT_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const served = { client, home, dir, close: () => client.close() };
  open.push(served);
  return served;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read the structured content's ad-hoc fields.
type Structured = any;

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; data: Structured; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text: string }>;
    structuredContent?: unknown;
    isError?: boolean;
  };
  return { text: result.content.map((part) => part.text).join('\n'), data: result.structuredContent, isError: result.isError === true };
}

describe('waypoint mcp: any MCP client gets checkpointed tools and the checkpoint verbs', () => {
  it('lists every tool with the schema that checks its calls', async () => {
    const { client } = await serve();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual([
      'bash',
      'begin_turn',
      'edit',
      'end_turn',
      'fork_workspace',
      'glob',
      'grep',
      'list_changes',
      'preview_undo',
      'read',
      'redo',
      'undo',
      'write',
    ]);
    const write = tools.find((tool) => tool.name === 'write')!;
    expect(write.inputSchema.type).toBe('object');
    expect(write.inputSchema.required).toEqual(['path', 'content']);
    expect(write.annotations?.destructiveHint).toBe(true);
    expect(tools.find((tool) => tool.name === 'list_changes')!.annotations?.readOnlyHint).toBe(true);
    expect(client.getInstructions()).toMatch(/begin_turn/);
  });

  it('a turn of writes, edits and shell commands is undone as one, refuses to clobber a later edit, and redoes', async () => {
    const { client, dir, home } = await serve();
    writeFileSync(join(dir, 'keep.txt'), 'old\n');
    writeFileSync(join(dir, 'doomed.txt'), 'doomed\n');
    const before = snapshotTree(dir);
    const begun = await call(client, 'begin_turn', { input: 'Write the notes and tidy up' });
    expect(begun.isError).toBe(false);
    expect((await call(client, 'write', { path: 'notes.md', content: 'one\ntwo\n' })).text).toMatch(/Created notes\.md[\s\S]*checkpointed: create notes\.md/);
    expect((await call(client, 'edit', { path: 'notes.md', oldString: 'two', newString: 'TWO' })).isError).toBe(false);
    const shell = await call(client, 'bash', { command: "sed -i 's/old/new/' keep.txt && rm doomed.txt && mv notes.md NOTES.md" });
    expect(shell.isError).toBe(false);
    expect(shell.data.checkpoints.map((checkpoint: { path: string }) => checkpoint.path).sort()).toEqual(expect.arrayContaining(['doomed.txt', 'keep.txt']));
    const ended = await call(client, 'end_turn', { reply: 'Done.' });
    expect(ended.data.files.map((file: { path: string }) => file.path).sort()).toEqual(['NOTES.md', 'doomed.txt', 'keep.txt']);
    const after = snapshotTree(dir);

    // A person edits a file the turn changed: the undo refuses and changes nothing.
    writeFileSync(join(dir, 'keep.txt'), 'new\nmine\n');
    const edited = snapshotTree(dir);
    const preview = await call(client, 'preview_undo');
    expect(preview.data.files.find((file: { path: string }) => file.path === 'keep.txt').status).toBe('external_modified');
    const refused = await call(client, 'undo');
    expect(refused.isError).toBe(true);
    expect(refused.data.error.code).toBe('REWIND_CONFLICT');
    expect(refused.text).toMatch(/^REWIND_CONFLICT: Nothing was changed/);
    expect(snapshotTree(dir)).toEqual(edited);

    // Overwriting it is a choice; the whole turn comes back as it was, the person's edit is kept for redo.
    const undone = await call(client, 'undo', { resolutions: { 'keep.txt': 'force' } });
    expect(undone.isError).toBe(false);
    expect(snapshotTree(dir)).toEqual(before);
    const redone = await call(client, 'redo');
    expect(redone.isError).toBe(false);
    expect(snapshotTree(dir)).toEqual({ ...after, 'keep.txt': edited['keep.txt'] });

    // The session is Waypoint's like any other: the CLI in another terminal sees it.
    const sessions = runCli(['sessions', '--json'], { home }).json();
    expect(sessions.sessions.map((session: { title: string }) => session.title)).toEqual(['MCP: mcp-test']);
  });

  it('without begin_turn each changing call is a turn of its own; reads record nothing', async () => {
    const { client, dir } = await serve();
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    const initial = snapshotTree(dir);
    expect((await call(client, 'read', { path: 'a.txt' })).text).toBe('1\ta');
    expect((await call(client, 'glob', { pattern: '*.txt' })).text).toBe('a.txt');
    expect((await call(client, 'grep', { pattern: '^a$' })).text).toBe('a.txt:1:a');
    expect((await call(client, 'list_changes')).data.turns).toEqual([]);
    await call(client, 'write', { path: 'b.txt', content: 'b\n' });
    await call(client, 'bash', { command: 'echo c > c.txt' });
    const listed = await call(client, 'list_changes');
    expect(listed.data.turns.map((turn: { input: string }) => turn.input)).toEqual(['bash: echo c > c.txt', 'write b.txt']);
    await call(client, 'undo');
    expect(existsSync(join(dir, 'c.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('b\n');
    const first = listed.data.turns[1];
    await call(client, 'undo', { turnId: first.turnId });
    expect(snapshotTree(dir)).toEqual(initial);
  });

  it('a background command is checkpointed when it ends, in the turn that started it', async () => {
    const { client, dir } = await serve();
    const started = await call(client, 'bash', { command: 'sleep 0.5; echo late > late.txt', background: true });
    expect(started.text).toMatch(/Started background task/);
    let files: string[] = [];
    for (let attempt = 0; attempt < 100 && !files.includes('late.txt'); attempt++) {
      await new Promise((done) => setTimeout(done, 100));
      files = (await call(client, 'list_changes')).data.turns.flatMap((turn: { files: Array<{ path: string }> }) => turn.files.map((file) => file.path));
    }
    expect(files).toEqual(['late.txt']);
    await call(client, 'undo');
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
  });

  it('forks the files at an input into a new directory and leaves this one alone', async () => {
    const { client, dir, home } = await serve();
    await call(client, 'write', { path: 'v.txt', content: 'v1\n' });
    const second = await call(client, 'begin_turn', { input: 'second version' });
    await call(client, 'write', { path: 'v.txt', content: 'v2\n' });
    await call(client, 'end_turn');
    const target = join(home, 'fork-here');
    const forked = await call(client, 'fork_workspace', { messageId: second.data.messageId, directory: target });
    expect(forked.isError).toBe(false);
    expect(forked.data.directory).toBe(target);
    expect(readFileSync(join(target, 'v.txt'), 'utf8')).toBe('v1\n');
    expect(readFileSync(join(dir, 'v.txt'), 'utf8')).toBe('v2\n');
  });

  it('bad calls get typed errors and change nothing', async () => {
    const { client, dir, home } = await serve();
    const invalid = await call(client, 'write', { path: 'x.txt' });
    expect(invalid.isError).toBe(true);
    expect(invalid.data.error.code).toBe('INVALID_ARGUMENT');
    expect(invalid.text).toMatch(/arguments\.content/);
    const outside = await call(client, 'write', { path: '../outside.txt', content: 'no' });
    expect(outside.isError).toBe(true);
    expect(outside.text).toMatch(/PATH_OUTSIDE_WORKSPACE/);
    expect(existsSync(join(home, 'outside.txt'))).toBe(false);
    expect((await call(client, 'undo')).data.error.code).toBe('NOTHING_TO_UNDO');
    expect((await call(client, 'redo')).data.error.code).toBe('NOTHING_TO_REDO');
    const unknown = await call(client, 'undo', { turnId: 'turn_nope' });
    expect(unknown.data.error.code).toBe('INVALID_ARGUMENT');
    expect(unknown.text).toMatch(/turnId/);
    await expect(client.callTool({ name: 'format_disk', arguments: {} })).rejects.toThrow(/Unknown tool "format_disk"/);
    expect(snapshotTree(dir)).toEqual({});
  });

  it('a server killed inside a turn leaves a session the next server continues', async () => {
    const home = mkdtempSync(join(tmpdir(), 'wp-mcp-'));
    const dir = join(home, 'project');
    mkdirSync(dir);
    const first = await serve({ home, dir });
    await call(first.client, 'begin_turn', { input: 'interrupted work' });
    await call(first.client, 'write', { path: 'half.txt', content: 'half\n' });
    const sessionId = runCli(['sessions', '--json'], { home }).json().sessions[0].id;
    const pids = spawn('pgrep', ['-f', `${BIN} mcp --dir ${dir}`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = await new Promise<number>((done) => pids.stdout.on('data', (data: Buffer) => done(Number(String(data).trim().split('\n')[0]))));
    process.kill(pid, 'SIGKILL');
    await first.close();
    const second = await serve({ home, dir, args: ['--session', sessionId] });
    const begun = await call(second.client, 'begin_turn', { input: 'go on' });
    expect(begun.isError).toBe(false);
    const listed = await call(second.client, 'list_changes');
    expect(listed.data.turns.map((turn: { status: string }) => turn.status)).toEqual(['running', 'interrupted']);
    await call(second.client, 'end_turn');
    await call(second.client, 'undo', { turnId: listed.data.turns[1].turnId });
    expect(existsSync(join(dir, 'half.txt'))).toBe(false);
  });
});
