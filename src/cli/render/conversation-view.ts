export { conversationView, type ConversationEntry } from '../../history/index.js';

/** The line that marks a compaction summary. */
export function compactedMarker(summaryOf: number): string {
  return `── compacted: summary of ${summaryOf} earlier ${summaryOf === 1 ? 'message' : 'messages'} (what the model is sent instead of them) ──`;
}
