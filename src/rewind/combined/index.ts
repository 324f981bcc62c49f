export { rewindSession, applySessionRewind, type SessionRewindOptions, type SessionRewindResult } from './session-rewind.js';
export { editUserQuery, retryTurn, lastInputText, type EditOptions, type EditResult, type StartTurn } from './edit-retry.js';
