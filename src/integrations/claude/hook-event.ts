import { z } from 'zod';

/**
 * The JSON Claude Code writes on a hook's stdin. Every event names its session, transcript and
 * directory; the rest depends on the event. Unknown fields are kept (newer versions add some).
 */
export const ClaudeHookEvent = z
  .object({
    session_id: z.string().min(1),
    hook_event_name: z.string().min(1),
    cwd: z.string().min(1),
    transcript_path: z.string().optional(),
    prompt_id: z.string().optional(),
    prompt: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    tool_use_id: z.string().optional(),
    tool_response: z.unknown().optional(),
    background_tasks: z.array(z.unknown()).optional(),
    last_assistant_message: z.string().optional(),
    agent_id: z.string().optional(),
  })
  .loose();
export type ClaudeHookEvent = z.infer<typeof ClaudeHookEvent>;

/** The events Waypoint's entries in the settings file subscribe to. */
export const HOOKED_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SubagentStop',
  'Stop',
  'SessionEnd',
] as const;
