import type { TurnSummary } from '../../../checkpoint/index.js';
import { inputText } from '../../../history/index.js';
import type { EventBus, JsonValue } from '../../../model/index.js';
import type { RuntimeEvents } from '../../../runtime/index.js';
import type { ToolOutput } from '../../../runtime/index.js';

const OUTPUT_LINES = 3;
const LINE_WIDTH = 110;

/**
 * Prints a running agent as a person would watch it, from the runtime's events only: the input,
 * the streamed reasoning and reply text, each tool call with its input and (the start of) its
 * result and checkpoint count, and the turn's change summary. Streamed text is printed a line at a
 * time (the demo's output is line-based, so `--json` can collect it).
 */
export class Narrator {
  private pending: { type: 'text' | 'reasoning'; text: string; started: boolean } | null = null;

  constructor(private readonly print: (line: string) => void) {}

  /** Subscribe to a runtime's events; returns the unsubscribe. */
  attach(events: EventBus<RuntimeEvents>): () => void {
    const offs = [
      events.on('turn-start', (event) => {
        this.flush();
        this.print(`you> ${inputText(event.input)}`);
      }),
      events.on('message-part', (event) => this.part(event.type, event.delta)),
      events.on('message-finish', () => this.flush()),
      events.on('tool-start', (event) => {
        this.flush();
        this.print(`  -> ${describeCall(event.toolName, event.input)}`);
      }),
      events.on('tool-end', (event) => {
        const checkpoints = event.checkpointIds.length;
        const lines = outputLines(event.output);
        const note = checkpoints > 0 ? `[${checkpoints} ${checkpoints === 1 ? 'checkpoint' : 'checkpoints'}]` : '';
        if (lines.length === 0 && note) lines.push(note);
        else if (note) lines[lines.length - 1] = `${lines.at(-1)}  ${note}`;
        for (const line of lines) this.print(`     ${line}`);
      }),
      events.on('turn-end', (event) => {
        this.flush();
        for (const line of summaryLines(event.status, event.summary, event.error)) this.print(`  ${line}`);
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  private part(type: 'text' | 'reasoning', delta: string): void {
    if (this.pending && this.pending.type !== type) this.flush();
    this.pending ??= { type, text: '', started: false };
    this.pending.text += delta;
    const lines = this.pending.text.split('\n');
    this.pending.text = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  private flush(): void {
    if (!this.pending) return;
    if (this.pending.text.trim() !== '') this.line(this.pending.text);
    this.pending = null;
  }

  private line(text: string): void {
    const pending = this.pending!;
    const label = pending.type === 'reasoning' ? '(thinking) ' : 'agent> ';
    this.print(`${pending.started ? ' '.repeat(label.length) : label}${text.trimEnd()}`);
    pending.started = true;
  }
}

/** A tool call in one line: the path it works on, or the command it runs. */
export function describeCall(toolName: string, input: JsonValue): string {
  const fields = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
  if (toolName === 'bash' && typeof fields.command === 'string') return `bash $ ${fields.command}`;
  if (typeof fields.path === 'string') {
    if (toolName === 'write' && typeof fields.content === 'string') return `write ${fields.path} (${fields.content.length} bytes)`;
    return `${toolName} ${fields.path}`;
  }
  return `${toolName} ${clip(JSON.stringify(input))}`;
}

/** The first lines of a tool result, and how many more there are. */
function outputLines(output: ToolOutput): string[] {
  const value = output.type === 'json' ? JSON.stringify(output.value) : output.value;
  const all = value
    .replace(/\t/g, '  ')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const shown = all.slice(0, OUTPUT_LINES).map((line) => (output.type === 'error-text' ? `error: ${clip(line)}` : clip(line)));
  if (all.length > OUTPUT_LINES) shown.push(`… ${all.length - OUTPUT_LINES} more lines`);
  return shown;
}

/** How a turn ended and its net file changes (from `summarizeTurn`, as `turn-end` carries it). */
export function summaryLines(status: string, summary: TurnSummary, error: { code: string; message: string } | null = null): string[] {
  const { files, added, removed } = summary.totals;
  const lines = [`turn ${status}: ${files === 0 ? 'no files changed' : `${files} ${files === 1 ? 'file' : 'files'} changed, +${added} -${removed} lines`}`];
  for (const file of summary.files) {
    const counts = file.binary ? 'binary' : file.added === null ? 'content not kept' : `+${file.added} -${file.removed}`;
    const by = file.sources.includes('exec') ? '  (by a shell command)' : '';
    lines.push(`  ${file.op.padEnd(7)}${file.displayPath.padEnd(22)} ${counts}${by}`);
  }
  for (const skipped of summary.skipped) lines.push(`  not checkpointed: ${skipped.displayPath} (${skipped.reason})`);
  if (error) lines.push(`  error ${error.code}: ${error.message}`);
  return lines;
}

function clip(line: string): string {
  return line.length > LINE_WIDTH ? `${line.slice(0, LINE_WIDTH - 1)}…` : line;
}
