import type { PartContent } from '../model/index.js';
import type { Store } from '../store/index.js';
import type { RuntimeCore } from './runtime-core.js';
import type { TurnScope } from './runtime-events.js';

interface Delta {
  type: 'text' | 'reasoning';
  text: string;
  partIndex: number;
}

/**
 * Writes a streaming assistant message as deltas arrive and emits `message-part` only for deltas
 * already written (events after commit): deltas are buffered, and every `flushChars` characters the parts
 * are replaced in the store, then the buffered deltas are emitted. `finish` writes the final parts
 * with the message's final status and emits what is left.
 */
export class StreamingWriter {
  private pending: Delta[] = [];
  private pendingChars = 0;

  constructor(
    private readonly core: RuntimeCore,
    private readonly store: Store,
    private readonly scope: TurnScope,
    private readonly messageId: string,
  ) {}

  readonly onDelta = async (delta: { type: 'text' | 'reasoning'; text: string; partIndex: number; parts: PartContent[] }): Promise<void> => {
    this.pending.push({ type: delta.type, text: delta.text, partIndex: delta.partIndex });
    this.pendingChars += delta.text.length;
    if (this.pendingChars < this.core.settings.streamFlushChars) return;
    await this.store.replaceStreamingParts(this.messageId, structuredClone(delta.parts));
    this.emitPending();
  };

  async finish(status: 'complete' | 'error' | 'interrupted', parts: PartContent[]) {
    const message = await this.store.finishMessage(this.messageId, status, parts);
    this.emitPending();
    return message;
  }

  private emitPending(): void {
    for (const delta of this.pending)
      this.core.events.emit('message-part', { ...this.scope, messageId: this.messageId, partIndex: delta.partIndex, type: delta.type, delta: delta.text });
    this.pending = [];
    this.pendingChars = 0;
  }
}
