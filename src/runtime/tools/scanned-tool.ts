import type { Checkpoint } from '../../model/index.js';
import { captureToolCall, uncoveredNote } from '../tool-call-capture.js';
import type { AnyRuntimeTool, ToolContext, ToolResult } from './tool.js';

/**
 * Runs a `workspace` tool that does not record its own changes (`capture: 'scan'`, the default)
 * inside a scan of the workspace (`captureToolCall`), so a custom tool that writes with `node:fs`
 * or spawns a process is checkpointed in the turn like the built-in tools, and undo restores it.
 * Every checkpoint of the call is reported once (also the ones the tool reported itself), and
 * what could not be kept is appended to the result the model sees — a thrown error's too, since a
 * tool that failed half way may still have changed files. The caller holds the capture lock.
 */
export async function runScanned(tool: AnyRuntimeTool, input: unknown, context: ToolContext, onThrow: (thrown: unknown) => ToolResult): Promise<ToolResult> {
  const reported = new Set<string>();
  const inner: ToolContext = Object.create(context, {
    recordCheckpoints: {
      value: (checkpoints: readonly Checkpoint[]) => {
        const fresh = checkpoints.filter((checkpoint) => !reported.has(checkpoint.id));
        for (const checkpoint of fresh) reported.add(checkpoint.id);
        if (fresh.length > 0) context.recordCheckpoints(fresh);
      },
    },
  });
  const { outcome, capture } = await captureToolCall(await context.capture(), () => tool.execute(input, inner), {
    toolName: tool.name,
    toolCallId: context.toolCallId,
    onProgress: (progress) => context.reportScanProgress(progress),
  });
  inner.recordCheckpoints(capture.checkpoints);
  const result = outcome.ok ? outcome.value : onThrow(outcome.error);
  if (!capture.partiallyProtected) return result;
  const note = uncoveredNote(capture.uncovered);
  const output =
    result.output.type === 'json'
      ? { type: 'text' as const, value: `${JSON.stringify(result.output.value)}\n${note}` }
      : { ...result.output, value: `${result.output.value}\n${note}` };
  return { ...result, output, metadata: { ...result.metadata, uncovered: capture.uncovered.slice(0, 100).map((path) => ({ ...path })) } };
}
