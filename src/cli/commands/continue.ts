import { resolve } from 'node:path';
import { continueSession } from '../../operations/index.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint } from '../command.js';
import { plural } from '../render/format.js';
import { renderFork } from './fork.js';

export const continueFlags = {
  dir: { type: 'string', value: 'dir', description: 'the new directory to continue in (missing or empty)' },
  at: { type: 'string', value: 'messageId', description: "continue from this message instead of the session's head" },
  'from-store': { type: 'boolean', description: "build the files from the store even when the session's own directory is reachable here" },
  title: { type: 'string', value: 'title', description: 'the new session\'s title (default "Fork of <title>")' },
} as const;

export const continueCommand = defineCommand({
  name: 'continue',
  synopsis: ['continue <session> --dir <dir> [--at <messageId>] [--from-store] [--title <title>]'],
  summary: 'continue a session here: a fork at its head (or --at a message) with its own directory on this machine',
  description: [
    "The same as `fork <session> --message <head> --isolated <dir>`. The files come from the session's directory when this machine",
    'reaches it, else from the store alone (a session recorded on another machine sharing a PostgreSQL store): every tracked file as',
    'it was at that point; what the store never holds (ignored paths such as node_modules, git metadata) is listed, to reinstall.',
    "Run turns in the new session (`waypoint chat <new-session>`); the original's `waypoint log` shows it as a fork.",
  ],
  flags: continueFlags,
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const [sessionId] = args.positionals as [string];
    if (args.flags.dir === undefined) throw new UsageError('name the directory to continue in: --dir <dir>', { command: 'continue' });
    const dir = resolve(context.cwd, args.flags.dir);
    return withWaypoint(context, async (waypoint) => {
      const progress = context.output.progress('materializing');
      try {
        const report = await continueSession(
          { waypoint },
          {
            sessionId,
            dir,
            ...(args.flags.at === undefined ? {} : { at: args.flags.at }),
            ...(args.flags['from-store'] ? { source: 'store' as const } : {}),
            ...(args.flags.title === undefined ? {} : { title: args.flags.title }),
          },
          { onProgress: (done, total) => progress.update(done, total) },
        );
        progress.done(report.materialized ? `${plural(report.materialized.files, 'file')} written` : undefined);
        return { data: report, text: renderFork(report) };
      } catch (error) {
        progress.done();
        throw error;
      }
    });
  },
});
