import { openWaypoint } from '../../engine/index.js';
import { InvalidArgumentError, packagePath, packageRoot } from '../../model/index.js';
import { createRuntime, MODEL_STRING_FORMS } from '../../runtime/index.js';
import { EffectApprovals, startServer } from '../../server/index.js';
import { integerFlag } from '../args.js';
import { defineCommand } from '../command.js';

export const serveFlags = {
  port: { type: 'string', value: 'port', description: 'the port (default 0: a free one)' },
  host: { type: 'string', value: 'host', description: 'the address to listen on (default 127.0.0.1; anything else exposes the store to that network)' },
  model: { type: 'string', value: 'model', description: `the model turns run with (default $WAYPOINT_MODEL): ${MODEL_STRING_FORMS.join('; ')}` },
} as const;

export const serveCommand = defineCommand({
  name: 'serve',
  synopsis: ['serve [--port <port>] [--host <host>] [--model <model>]'],
  summary: 'the browser UI: a local server for the sessions of the store, with a secret token in the URL it prints',
  description: [
    'Open the printed URL (it holds a token made for this start; every request and the socket need it). It listens on 127.0.0.1 unless --host says otherwise, and answers only requests whose Host and Origin are its own.',
    'The protocol (JSON-RPC 2.0 over a WebSocket at /rpc) is in docs/protocol.md; changes made from the CLI or a chat in another terminal appear in the open tabs. Ctrl-C stops it (running turns are interrupted).',
  ],
  flags: serveFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    const model = args.flags.model?.trim() || process.env.WAYPOINT_MODEL?.trim();
    if (!model) {
      throw new InvalidArgumentError({
        code: 'MODEL_REQUIRED',
        parameter: 'model',
        value: null,
        reason: `choose the model turns run with: --model or $WAYPOINT_MODEL: ${MODEL_STRING_FORMS.join('; ')}.`,
      });
    }
    const port = args.flags.port === undefined ? 0 : integerFlag('port', args.flags.port, 0, 0);
    if (port > 65535) throw new InvalidArgumentError({ parameter: 'port', value: port, reason: 'a port is at most 65535.' });
    const { version } = packageRoot();
    const waypoint = await openWaypoint({ path: context.storePath });
    try {
      // External calls that need a decision (in forks and side chats, or a repeat) are asked of the open page.
      const approvals = new EffectApprovals();
      const runtime = createRuntime({ waypoint, model, approveEffect: approvals.approve });
      const server = await startServer({
        approvals,
        waypoint,
        runtime,
        host: args.flags.host ?? '127.0.0.1',
        port,
        webRoot: packagePath('dist', 'web'),
        version,
      });
      if (context.json) context.output.print(JSON.stringify({ type: 'serve', url: server.url, openUrl: server.openUrl, store: context.storePath }));
      else {
        context.output.print(`Waypoint is serving ${context.storePath}`);
        context.output.print(`Open ${server.openUrl}`);
      }
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
      await server.close();
      await runtime.close();
      return { data: { type: 'serve', url: server.url, stopped: true }, text: ['Stopped.'] };
    } finally {
      await waypoint.close();
    }
  },
});
