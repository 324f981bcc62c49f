import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { openWaypoint, storeLabel, type Waypoint } from '../../engine/index.js';
import { InvalidArgumentError, type Session } from '../../model/index.js';
import { createRuntime, MODEL_STRING_FORMS, sessionModel, type EffectApprovalRequest, type EffectDecision } from '../../runtime/index.js';
import { ChatController } from '../chat/chat-controller.js';
import type { ChatIO } from '../chat/chat-io.js';
import { LineChatIO } from '../chat/line-io.js';
import { recentMessages, repairLines } from '../chat/slash/sessions.js';
import { TtyChatIO } from '../chat/tty-io.js';
import { describeToolCall } from '../chat/event-view.js';
import { defineCommand } from '../command.js';

export const chatFlags = {
  model: { type: 'string', value: 'model', description: `the model (default $WAYPOINT_MODEL): ${MODEL_STRING_FORMS.join('; ')}` },
  dir: { type: 'string', value: 'dir', description: 'the workspace the agent works in (default: the current directory)' },
  resume: { type: 'string', value: 'session', description: 'continue a session (its workspace, its history) instead of starting one' },
  title: { type: 'string', value: 'title', description: "a new session's title" },
} as const;

/** Asks the person before an external call the effects policy holds back (a repeat, or one inside a fork). */
function approveWith(io: ChatIO) {
  return async (request: EffectApprovalRequest): Promise<EffectDecision> => {
    const why = {
      policy: 'this session asks before external calls',
      'already-succeeded': 'an identical call already succeeded in this session',
      'in-doubt': 'an identical call started earlier and never finished',
    }[request.reason];
    const choice = await io.pick<EffectDecision>({
      title: `The agent wants to run ${describeToolCall(request.toolName, request.input)}: ${why}.`,
      items: [
        { label: 'Run it', value: 'run' },
        { label: 'Do not run it (the agent is told it was declined)', value: 'deny' },
      ],
    });
    return choice ?? 'deny';
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The model string a session recorded (null when it predates the record). */
async function rememberedModel(waypoint: Waypoint, sessionId: string): Promise<string | undefined> {
  return (await sessionModel(waypoint.store, sessionId))?.spec ?? undefined;
}

function requireDirectory(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InvalidArgumentError({
      code: 'WORKSPACE_MISSING',
      parameter: 'dir',
      value: dir,
      reason: 'it is not an existing directory; create it or point --dir at the project.',
    });
  }
}

export const chatCommand = defineCommand({
  name: 'chat',
  synopsis: [
    'chat [--model <model>] [--dir <dir>] [--title <title>]',
    'chat --resume <session> [--model <model>]  (default: the model the session last ran with)',
  ],
  summary: 'an interactive agent session with checkpoints: /rewind, /undo, /redo, /edit, /retry, /fork, /side …',
  description: [
    'Type a request and the agent works in the workspace; every file it changes is checkpointed. /help lists the slash commands.',
    'On a terminal, /rewind without arguments opens a list (↑/↓, Enter, Esc); a rewound input comes back in the prompt to edit.',
    'The store is created when missing. Real providers need a reachable endpoint and a key; scripted:<file> needs neither.',
  ],
  flags: chatFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    if (context.json)
      throw new InvalidArgumentError({
        code: 'USAGE',
        parameter: 'json',
        value: true,
        reason: 'the chat is interactive; --json is for the one-shot commands (sessions, show, log …).',
      });
    const env = process.env;
    // A resumed session remembers its model; a new one needs one named.
    const named = nonEmpty(args.flags.model) ?? (args.flags.resume === undefined ? nonEmpty(env.WAYPOINT_MODEL) : undefined);
    if (named === undefined && args.flags.resume === undefined) {
      throw new InvalidArgumentError({
        code: 'MODEL_REQUIRED',
        parameter: 'model',
        value: null,
        reason: `choose a model with --model or $WAYPOINT_MODEL: ${MODEL_STRING_FORMS.join('; ')}.`,
      });
    }
    if (args.flags.resume !== undefined && (args.flags.dir !== undefined || args.flags.title !== undefined)) {
      throw new InvalidArgumentError({
        code: 'USAGE',
        parameter: 'resume',
        value: args.flags.resume,
        reason: 'a resumed session keeps its own workspace and title; drop --dir and --title (use /title in the chat).',
      });
    }
    const workdir = resolve(context.cwd, args.flags.dir ?? '.');
    if (args.flags.resume === undefined) requireDirectory(workdir);
    const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    const waypoint = await openWaypoint({ path: context.storePath });
    let io: ChatIO | null = null;
    try {
      const resumed = args.flags.resume === undefined ? null : await waypoint.store.getSession(args.flags.resume);
      if (resumed?.workdir) requireDirectory(resumed.workdir);
      const model = named ?? (await rememberedModel(waypoint, resumed!.id)) ?? nonEmpty(env.WAYPOINT_MODEL);
      if (model === undefined) {
        throw new InvalidArgumentError({
          code: 'MODEL_REQUIRED',
          parameter: 'model',
          value: null,
          reason: `session ${resumed!.id} does not record which model it ran with (it was started before sessions remembered it); resume it with --model: ${MODEL_STRING_FORMS.join('; ')}.`,
        });
      }
      io = tty ? new TtyChatIO({ input: process.stdin, output: process.stdout }) : new LineChatIO({ input: process.stdin, output: process.stdout });
      const runtime = createRuntime({ waypoint, model, approveEffect: approveWith(io) });
      let session: Session | null = null;
      let repaired: string[] = [];
      if (resumed) {
        const result = await runtime.resumeSession(resumed.id);
        session = result.session;
        repaired = repairLines(result.repair);
      }
      const title = args.flags.title;
      // A new session is stored at the first input: a chat left without one leaves nothing behind.
      const startSession = (fromInput: string | null) => {
        const chosen = title ?? fromInput;
        return runtime.startSession({ workdir, ...(chosen === null ? {} : { title: chosen }) });
      };
      io.print(
        io.style.bold(
          session
            ? `Waypoint chat · ${session.id} ${JSON.stringify(session.title)}`
            : `Waypoint chat · a new session${title === undefined ? '' : ` ${JSON.stringify(title)}`} (stored at your first input)`,
        ),
      );
      io.print(
        io.style.dim(`workspace ${session ? (session.workdir ?? '(none)') : workdir} · model ${runtime.modelLabel} · store ${storeLabel(context.storePath)}`),
      );
      io.print(io.style.dim('Every file change is checkpointed. /help lists the commands; /rewind goes back; Ctrl-C stops a turn.'));
      const controller = new ChatController({
        io,
        runtime,
        waypoint,
        session,
        startSession,
        titled: title !== undefined,
        startDir: session?.workdir ?? workdir,
      });
      if (session) for (const line of await recentMessages(controller, session)) io.print(line);
      for (const line of repaired) io.print(io.style.warn(line));
      await controller.run();
      await runtime.close();
      if (!controller.stored) return { data: { type: 'chat', sessionId: null }, text: ['Nothing was typed, so no session was stored.'] };
      return {
        data: { type: 'chat', sessionId: controller.sessionId },
        text: [`Session ${controller.sessionId} saved. Continue it with: waypoint chat --resume ${controller.sessionId}`],
      };
    } finally {
      io?.close();
      await waypoint.close();
    }
  },
});
