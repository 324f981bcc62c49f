import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openWaypoint } from '../../engine/index.js';
import { createMcpServer } from '../../mcp/index.js';
import { InvalidArgumentError } from '../../model/index.js';
import { defineCommand } from '../command.js';

export const mcpFlags = {
  dir: { type: 'string', value: 'dir', description: 'the workspace the tools work in (default: the current directory)' },
  session: { type: 'string', value: 'session', description: 'continue this session (its workspace) instead of starting one at the first call' },
  title: { type: 'string', value: 'title', description: 'a new session\'s title (default "MCP: <client name>")' },
} as const;

export const mcpCommand = defineCommand({
  name: 'mcp',
  synopsis: ['mcp [--dir <dir>] [--title <title>]', 'mcp --session <session>'],
  summary: 'an MCP server on stdin/stdout: checkpointed read, write, edit, bash, glob, grep, and list_changes, preview_undo, undo, redo, fork_workspace',
  description: [
    'For any MCP client (Claude Code: `claude mcp add waypoint -- waypoint mcp --dir .`). Each call that changes files is a turn of its own unless the client groups calls with begin_turn/end_turn; `waypoint rewind`, `redo` and `fork` work on the session from another terminal too.',
    'Nothing but the protocol is written to stdout; a session is created at the first tool call. The server ends when its input closes (an open turn is ended, background commands are stopped).',
  ],
  flags: mcpFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    if (args.flags.session !== undefined && (args.flags.dir !== undefined || args.flags.title !== undefined)) {
      throw new InvalidArgumentError({
        parameter: 'session',
        value: args.flags.session,
        reason: 'a continued session keeps its own directory and title; drop --dir and --title.',
      });
    }
    const waypoint = await openWaypoint({ path: context.storePath });
    try {
      const continued = args.flags.session === undefined ? null : await waypoint.store.getSession(args.flags.session);
      const workdir = continued?.workdir ?? resolve(context.cwd, args.flags.dir ?? '.');
      if (!existsSync(workdir) || !statSync(workdir).isDirectory()) {
        throw new InvalidArgumentError({
          code: 'WORKSPACE_MISSING',
          parameter: 'dir',
          value: workdir,
          reason: 'it is not an existing directory; create it or point --dir at the project.',
        });
      }
      const mcp = createMcpServer({
        waypoint,
        workdir,
        ...(continued ? { sessionId: continued.id } : {}),
        ...(args.flags.title === undefined ? {} : { title: args.flags.title }),
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((done) => {
        transport.onclose = () => done();
        process.stdin.once('end', () => done());
        process.once('SIGTERM', () => done());
        process.once('SIGINT', () => done());
      });
      await mcp.server.connect(transport);
      await closed;
      await mcp.close();
      return { data: { type: 'mcp', sessionId: mcp.session.currentId }, text: [] };
    } finally {
      await waypoint.close();
    }
  },
});
