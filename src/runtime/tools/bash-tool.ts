import { basename } from 'node:path';
import { z } from 'zod';
import { captureExec } from '../../checkpoint/index.js';
import { shellInvocation } from './protected-shell.js';
import { runCommand } from './run-command.js';
import { defineTool, errorText, text } from './tool.js';

/**
 * `bash`: a shell command in the workspace root; effect `workspace`. In the foreground it runs under
 * a workspace scan before and after (`captureExec`), so what it changed becomes `exec` checkpoints;
 * it is killed at its timeout or when the turn is interrupted. The runtime holds the session's
 * capture lock for the whole command. With `background: true` the workspace is scanned and the
 * command starts as a task registered for this turn and branch generation; when it ends its changes
 * are checkpointed against this turn and its result arrives as a task notification — both
 * discarded when the session has been rewound past the turn meanwhile (`BackgroundTasks`).
 */
export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a bash command in the workspace root. Returns its output and exit code. Foreground commands are killed at timeoutMs (default 120000). Set background: true for long-running commands (servers, watchers); their result arrives later as a notification. File changes are checkpointed.',
  effect: 'workspace',
  capture: 'self',
  inputSchema: z.object({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().max(3_600_000).optional(),
    background: z.boolean().optional(),
    description: z.string().optional(),
  }),
  async execute(input, context) {
    if (input.background) {
      const started = await context.startBackground(input.command, input.description === undefined ? {} : { description: input.description });
      return text(
        `Started background task ${started.taskId}${started.pid ? ` (pid ${started.pid})` : ''}. Its output arrives as a notification when it finishes.`,
      );
    }
    const cwd = context.workspace.primaryRoot.dir;
    const timeoutMs = input.timeoutMs ?? context.settings.bashTimeoutMs;
    // The store's files inside the workspace are read-only for the command; where that cannot be
    // arranged the command is refused here, before the scan (STORE_NOT_PROTECTED).
    const protectedPaths = context.workspace.protectedPathsInRoots();
    shellInvocation(input.command, protectedPaths);
    const { value: outcome, capture } = await captureExec(
      await context.capture(),
      () => runCommand(input.command, { cwd, timeoutMs, signal: context.signal, maxOutputChars: context.settings.maxOutputChars, protectedPaths }),
      { toolName: 'bash', toolCallId: context.toolCallId, command: input.command, onProgress: (progress) => context.reportScanProgress(progress) },
    );
    context.recordCheckpoints(capture.checkpoints);
    const touched =
      capture.storeTouched.length > 0
        ? `\n[The command changed Waypoint's own store files (${capture.storeTouched.join(', ')}): sessions may be damaged. Do not touch them again; tell the person.]`
        : '';
    const refused = refusedByProtection(outcome.output, protectedPaths)
      ? `\n[Waypoint's store (${protectedPaths.join(', ')}) is read-only for shell commands: what the command tried to change in it was refused, and every session is intact.]`
      : '';
    const uncovered = capture.partiallyProtected
      ? `\n[not every change could be checkpointed: ${capture.uncovered
          .slice(0, 5)
          .map((path) => `${path.path || '(workspace)'} ${path.reason}`)
          .join(', ')}]`
      : '';
    if (outcome.aborted) return errorText(`Interrupted: the command was killed when the turn was stopped.\n${outcome.output}${uncovered}${refused}${touched}`);
    if (outcome.timedOut) return errorText(`Timed out after ${timeoutMs} ms; the command was killed.\n${outcome.output}${uncovered}${refused}${touched}`);
    const status = outcome.exitCode === null ? `killed by ${outcome.signal ?? 'a signal'}` : `exit code ${outcome.exitCode}`;
    return text(`${outcome.output}${outcome.output.endsWith('\n') || outcome.output === '' ? '' : '\n'}[${status}]${uncovered}${refused}${touched}`);
  },
});

/** Whether the command's output shows it ran into the read-only store (an error line naming one of its files). */
function refusedByProtection(output: string, protectedPaths: readonly string[]): boolean {
  if (protectedPaths.length === 0) return false;
  const names = [...new Set(protectedPaths.map((path) => basename(path)))];
  return output.split('\n').some((line) => /Read-only file system|Device or resource busy/.test(line) && names.some((name) => line.includes(name)));
}
