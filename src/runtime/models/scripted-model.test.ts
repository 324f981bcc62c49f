import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from './scripted-model.js';

describe('ScriptedModel', () => {
  it('is an AI SDK model: streamText streams its text and tool calls, one step per call, in order', async () => {
    const model = ScriptedModel.fromSteps([
      { reasoning: 'think', text: 'Hello there world', toolCalls: [{ toolName: 'write', input: { path: 'a' } }] },
      { text: 'Bye.' },
    ]);
    const first = streamText({ model, prompt: 'hi' });
    const parts: string[] = [];
    for await (const part of first.fullStream)
      if (part.type === 'text-delta' || part.type === 'tool-call' || part.type === 'reasoning-delta')
        parts.push(part.type === 'tool-call' ? `call ${part.toolName} ${JSON.stringify(part.input)} ${part.toolCallId}` : `${part.type} ${part.text}`);
    expect(parts).toEqual(['reasoning-delta think', 'text-delta Hello ', 'text-delta there ', 'text-delta world', 'call write {"path":"a"} scripted_1_1']);
    const second = await generateText({ model, prompt: 'again' });
    expect(second.text).toBe('Bye.');
    expect(model.calls).toHaveLength(2);
    await expect(generateText({ model, prompt: 'more', maxRetries: 0 })).rejects.toMatchObject({ code: 'SCRIPT_EXHAUSTED' });
  });
});
