// The agent runtime: the turn loop over the engine (checkpointed tools, save points, boundary
// pinning, resume repair), models through the Vercel AI SDK (OpenAI-compatible, Anthropic, and a
// scripted model for demos and tests), background tasks, the effects policy, and the events a UI shows.
export { AgentRuntime, createRuntime, DEFAULT_CONTEXT_TOKENS, DEFAULT_SYSTEM_PROMPT, type RuntimeOptions, type RunTurnOptions } from './agent-runtime.js';
export { runTurnLoop, type TurnResult } from './turn-loop.js';
export { compactSession, estimateTokens, needsCompaction, type AutoCompactOptions, type CompactionResult } from './compaction.js';
export type { RuntimeEvents, TurnScope } from './runtime-events.js';
export { ModelError, type ModelErrorCode } from './runtime-errors.js';
export { resolveModel, MODEL_STRING_FORMS, type ResolvedModel } from './models/resolve-model.js';
export { sessionModel, type SessionModel } from './session-model.js';
export { ScriptedModel } from './models/scripted-model.js';
export { ModelScript, ScriptedStep, loadModelScript, parseModelScript } from './models/scripted-script.js';
export { toModelError } from './models/model-call-error.js';
export type { LanguageModelV3 } from './models/language-model-v3.js';
export { toModelMessages } from './model-messages.js';
export { FILE_REWIND_NOTE, fileRewindNotice, fileRewindNoteText, withFileRewindNote, type RewoundFileNotice } from './file-rewind-note.js';
export { checkpointTools, type CheckpointToolsOptions, type ToolCaptureReport } from './checkpoint-tools.js';
export { startTurn, type StartTurnOptions, type EndTurnOptions, type EndedTurn, type TurnHandle } from './external-turn.js';
export { captureToolCall, checkpointedFs, type ToolCallCapture, type ToolCallCaptureOptions, type CapturedOutcome } from './tool-call-capture.js';
export { CaptureLocks, captureLocksFor } from './capture-lock.js';
export { idempotencyKey, canonicalJson, executeToolCall, type ApproveEffect, type EffectDecision, type EffectApprovalRequest } from './tool-executor.js';
export { BackgroundTasks } from './background-tasks.js';
export { ToolHost, type ToolHostOptions, type HostedToolCall, type HostedToolResult } from './tool-host.js';
export { subagentLink, SUBAGENT_METADATA, type SubagentLink } from './subagent-loop.js';
export {
  defaultTools,
  defineTool,
  text,
  errorText,
  truncateOutput,
  globToRegExp,
  readTool,
  writeTool,
  editTool,
  bashTool,
  globTool,
  grepTool,
  subagentTool,
  type RuntimeTool,
  type ToolCapture,
  type ToolContext,
  type ToolOutput,
  type ToolResult,
  type BackgroundStart,
  type SubagentRun,
} from './tools/index.js';
