import type { AssistantContent, ModelMessage, ToolContent, UserContent } from 'ai';
import { modelView } from '../history/index.js';
import type { MessageWithParts, PartContent } from '../model/index.js';

/**
 * What the model is sent: the active path through `modelView` (compaction applied, person-only
 * messages left out), as AI SDK `ModelMessage`s. Stored parts already have the SDK's shape, so this
 * only picks the parts each role may carry. A system message after the first position (fork notes
 * are user messages; a divider is person-only) is sent as user text, since providers accept system
 * text only at the start. A compaction summary is user text, whoever recorded it. Messages left with no content are skipped.
 */
export function toModelMessages(path: readonly MessageWithParts[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const message of modelView(path)) {
    const parts = message.parts.map((part) => part.content).filter((content): content is PartContent => content !== undefined);
    if (message.role === 'system') {
      const text = textOf(parts);
      if (text === '') continue;
      messages.push(messages.length === 0 ? { role: 'system', content: text } : { role: 'user', content: [{ type: 'text', text }] });
    } else if (message.role === 'user' || message.kind === 'summary') {
      // A summary is sent as the runtime records one (user text), whichever role its writer gave it.
      const content = parts
        .filter((part) => part.type === 'text' && typeof part.text === 'string' && part.text !== '')
        .map((part) => ({ type: 'text' as const, text: part.text as string }));
      if (content.length > 0) messages.push({ role: 'user', content: content satisfies UserContent });
    } else if (message.role === 'assistant') {
      const content: Exclude<AssistantContent, string> = [];
      for (const part of parts) {
        if (part.type === 'text' && typeof part.text === 'string' && part.text !== '') content.push({ type: 'text', text: part.text });
        else if (part.type === 'reasoning' && typeof part.text === 'string' && part.text !== '') content.push({ type: 'reasoning', text: part.text });
        else if (part.type === 'tool-call')
          content.push({ type: 'tool-call', toolCallId: String(part.toolCallId), toolName: String(part.toolName), input: part.input ?? {} });
      }
      if (content.length > 0) messages.push({ role: 'assistant', content });
    } else if (message.role === 'tool') {
      const content: ToolContent = [];
      for (const part of parts) {
        if (part.type !== 'tool-result') continue;
        content.push({ type: 'tool-result', toolCallId: String(part.toolCallId), toolName: String(part.toolName), output: toolOutput(part.output) });
      }
      if (content.length > 0) messages.push({ role: 'tool', content });
    }
  }
  return messages;
}

function textOf(parts: readonly PartContent[]): string {
  return parts
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

type ToolResultOutput = Extract<ToolContent[number], { type: 'tool-result' }>['output'];

function toolOutput(output: PartContent[string]): ToolResultOutput {
  if (output && typeof output === 'object' && !Array.isArray(output)) {
    if ((output.type === 'text' || output.type === 'error-text') && typeof output.value === 'string') return { type: output.type, value: output.value };
    if ((output.type === 'json' || output.type === 'error-json') && output.value !== undefined) return { type: output.type, value: output.value as never };
  }
  return { type: 'json', value: (output ?? null) as never };
}
