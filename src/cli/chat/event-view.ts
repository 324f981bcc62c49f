import type { JsonValue } from '../../model/index.js';
import type { AgentRuntime, RuntimeEvents } from '../../runtime/index.js';
import type { Progress } from '../output.js';
import { formatBytes, oneLine, plural } from '../render/format.js';
import type { ChatIO } from './chat-io.js';

/** A tool call in one line: `write src/a.ts`, `bash npm test`. */
export function describeToolCall(toolName: string, input: JsonValue): string {
  const fields = input && typeof input === 'object' && !Array.isArray(input) ? input : {};
  const pick = (...names: string[]) => names.map((name) => fields[name]).find((value) => typeof value === 'string') as string | undefined;
  const subject = pick('path', 'command', 'pattern', 'task', 'prompt', 'query');
  return subject === undefined ? toolName : `${toolName} ${oneLine(subject, 70)}`;
}

/** The first lines of a command's output (what a person glances at), and how many more there are. */
export function outputPreview(output: { type: string; value: unknown }, max = 4): string[] {
  const text = typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
  const lines = text
    .replace(/\s+$/, '')
    .split('\n')
    .filter((line, index, all) => line !== '' || index < all.length - 1);
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return [];
  const shown = lines.slice(0, max).map((line) => oneLine(line, 110));
  return lines.length > max ? [...shown, `… ${plural(lines.length - max, 'more line')}`] : shown;
}

/** The turn-end line: what changed, or why the turn stopped. */
export function turnEndLines(event: RuntimeEvents['turn-end']): string[] {
  const lines: string[] = [];
  const { summary } = event;
  if (summary.files.length > 0) {
    const counts = (file: (typeof summary.files)[number]) => (file.added === null ? (file.binary ? ' (binary)' : '') : ` +${file.added} -${file.removed}`);
    lines.push(
      `${plural(summary.files.length, 'file')} changed: ${summary.files.map((file) => `${file.op} ${file.displayPath}${counts(file)}`).join(', ')}  · /undo reverts them`,
    );
  }
  for (const skipped of summary.skipped) lines.push(`not protected: ${skipped.displayPath} (${skipped.reason})`);
  if (event.status === 'interrupted') lines.push('Turn interrupted.');
  if (event.status === 'error' && event.error) lines.push(`Turn failed: ${event.error.message}`);
  return lines;
}

/**
 * Draws the runtime's events on the chat: replies and reasoning as they stream, one line per tool
 * call and its outcome, the turn's file changes at its end, background task results.
 */
export function attachEventView(runtime: AgentRuntime, io: ChatIO): () => void {
  const { style } = io;
  const scans = new Map<string, Progress>();
  let lastPart: string | null = null;
  const unsubscribe = [
    runtime.events.on('scan-progress', (event) => {
      const key = `${event.toolCallId}:${event.taskId ?? ''}:${event.scan}`;
      let bar = scans.get(key);
      if (!bar) scans.set(key, (bar = io.progress(`  scanning the workspace ${event.scan === 'before' ? 'before' : 'after'} the command`)));
      if (event.phase === 'read') bar.step(`${event.filesRead} files read (${formatBytes(event.bytesRead)})`);
      else if (event.phase === 'store') bar.step(`making ${plural(event.filesRead, 'file')} durable${event.files === null ? '' : ` of ${event.files} seen`}`);
      else {
        scans.delete(key);
        bar.done(
          style.dim(
            `${plural(event.files ?? event.filesRead, 'file')} scanned in ${event.elapsedMs < 1000 ? `${Math.round(event.elapsedMs)} ms` : `${(event.elapsedMs / 1000).toFixed(1)} s`}`,
          ),
        );
      }
    }),
    runtime.events.on('message-part', (event) => {
      if (event.subagent) return;
      // Reasoning and the reply are separate paragraphs.
      const part = `${event.messageId}:${event.partIndex}`;
      if (lastPart !== null && lastPart !== part) io.print('');
      lastPart = part;
      io.stream(event.type === 'reasoning' ? style.dim(event.delta) : event.delta);
    }),
    runtime.events.on('message-finish', () => void (lastPart = null)),
    runtime.events.on('tool-start', () => void (lastPart = null)),
    runtime.events.on('tool-start', (event) => {
      io.print(style.dim(`${event.subagent ? '    ↳ ' : '  ⏺ '}${describeToolCall(event.toolName, event.input)}`));
    }),
    runtime.events.on('tool-end', (event) => {
      if (event.output.type === 'error-text') io.print(style.warn(`${event.subagent ? '      ' : '    '}✗ ${oneLine(event.output.value, 160)}`));
      else {
        if (event.toolName === 'bash' && !event.subagent) for (const line of outputPreview(event.output)) io.print(style.dim(`    │ ${line}`));
        if (event.checkpointIds.length > 0 && !event.subagent) io.print(style.dim(`    ✓ ${plural(event.checkpointIds.length, 'checkpoint')}`));
      }
    }),
    runtime.events.on('turn-end', (event) => {
      if (event.subagent) return;
      for (const line of turnEndLines(event)) io.print(event.status === 'error' ? style.error(line) : style.dim(line));
    }),
    runtime.events.on('task-start', (event) => io.print(style.dim(`  background task ${event.taskId} started: ${oneLine(event.command, 70)}`))),
    runtime.events.on('task-end', (event) => {
      const outcome = event.discarded
        ? `stopped (${event.reason === 'stale-branch' ? 'its turn was rewound' : 'result discarded'})`
        : `finished with exit code ${event.exitCode ?? '?'}`;
      const changes = event.checkpointIds.length > 0 ? `; ${plural(event.checkpointIds.length, 'file change')} checkpointed` : '';
      io.print(style.dim(`  background task ${event.taskId} ${outcome}${changes}`));
      if (event.captureError) io.print(style.warn(`  its file changes could not be scanned: ${event.captureError}`));
    }),
    runtime.events.on('conversation-compact', (event) => {
      if (event.result) {
        const { result } = event;
        io.print(
          style.dim(
            `${result.trigger === 'auto' ? 'The conversation neared the context window and was compacted' : 'Compacted'}: the model is now sent ≈${result.tokensAfter} tokens instead of ≈${result.tokensBefore}. You still see everything; /rewind to an earlier input undoes it.`,
          ),
        );
      } else if (event.error) io.print(style.warn(`Automatic compaction failed (${event.error.message}); the turn goes on with the full conversation.`));
    }),
    runtime.events.on('subagent-start', (event) => {
      if (!event.subagent) io.print(style.dim(`    ↳ subagent ${event.childSessionId}: ${oneLine(event.description ?? event.prompt, 60)}`));
    }),
    runtime.events.on('subagent-end', (event) => {
      if (!event.subagent) io.print(style.dim(`    ↳ subagent ${event.status}${event.text ? `: ${oneLine(event.text, 80)}` : ''}`));
    }),
  ];
  return () => {
    for (const off of unsubscribe) off();
  };
}
