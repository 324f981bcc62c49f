import { z } from 'zod';

/**
 * The JSON Codex CLI writes on a hook's stdin (Claude Code's shape): every event names its session,
 * directory and transcript; events inside a turn add `turn_id`; `UserPromptSubmit` adds `prompt`;
 * `PreToolUse`/`PostToolUse` add `tool_name` (`Bash` for shell commands, `apply_patch` with the
 * raw patch in `tool_input.command`, `mcp__server__tool`), `tool_input`, `tool_use_id`; `Stop`
 * adds `last_assistant_message`. Unknown fields are kept (newer versions add some).
 */
export const CodexHookEvent = z
  .object({
    session_id: z.string().min(1),
    hook_event_name: z.string().min(1),
    cwd: z.string().min(1),
    transcript_path: z.string().nullable().optional(),
    turn_id: z.string().optional(),
    prompt: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    tool_use_id: z.string().optional(),
    tool_response: z.unknown().optional(),
    last_assistant_message: z.string().nullable().optional(),
  })
  .loose();
export type CodexHookEvent = z.infer<typeof CodexHookEvent>;

/** The events Waypoint's entries in Codex's hooks file subscribe to. */
export const CODEX_HOOKED_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'] as const;
