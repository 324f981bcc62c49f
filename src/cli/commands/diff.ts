import { createStyle } from '../chat/style.js';
import { defineCommand, withWaypoint } from '../command.js';
import { checkpointDiff, renderDiff } from '../render/checkpoint-diff.js';
import { colorDiff } from '../render/git-patch.js';

export const diffCommand = defineCommand({
  name: 'diff',
  synopsis: ['diff <checkpoint>'],
  summary: "a checkpoint's change as a patch `git apply` takes (computed from its before/after contents)",
  description: [
    'The patch has git headers (`diff --git`, mode, rename, /dev/null for a created or deleted file) and minimal hunks; `#` lines above it say which checkpoint it is.',
    'Binary files, directories and changes whose content was not kept are described instead of diffed.',
    'On a terminal the diff is in color (not with NO_COLOR set, nor when piped).',
  ],
  flags: {},
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const report = await withWaypoint(context, (waypoint) => checkpointDiff(waypoint, args.positionals[0]!));
    const lines = renderDiff(report);
    const color = !context.json && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
    return { data: report, text: color ? colorDiff(lines, createStyle(true)) : lines };
  },
});
