export {
  rewindSession,
  applySessionRewind,
  previewSessionRewind,
  type SessionRewindOptions,
  type SessionRewindResult,
  type SessionRewindPreview,
} from './session-rewind.js';
export { editUserQuery, retryTurn, lastInputText, type EditOptions, type EditResult, type StartTurn } from './edit-retry.js';
