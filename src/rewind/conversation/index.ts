export {
  rewindConversation,
  planConversationRewind,
  type RewindConversationOptions,
  type ConversationRewind,
  type ConversationRewindPlan,
} from './rewind-conversation.js';
export { redoConversation, findRedo, type RedoInfo } from './redo-conversation.js';
export { resolveUserTarget, type RewindScope } from './rewind-target.js';
export { evaluateRewindTarget, type RewindStrategy, type RewindTargetEvaluation } from './evaluate-rewind-target.js';
export { TaskRegistry, stopTasksOrFail, type BackgroundTask, type StopReport } from './task-registry.js';
export { recordSavePoint, listSavePoints, rewindToSavePoint, type SavePoint, type SavePointKind } from './save-points.js';
export { repairDanglingToolCalls, type DanglingRepair } from './repair-dangling.js';
export type { ConversationEvents } from './conversation-events.js';
