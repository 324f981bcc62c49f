import type { ScriptedStep } from '../../../runtime/index.js';

/**
 * What `waypoint demo` plays: the files of a small project and, for each turn, the person's input
 * and the scripted model's steps (one step per model call, played in order by `ScriptedModel`).
 * Only the model is scripted; the runtime runs every tool call for real, so the files, checkpoints,
 * command output and summaries the demo prints are what actually happened.
 */

/** The project the agent works on, written into a fresh directory. */
export const DEMO_PROJECT: Readonly<Record<string, string>> = {
  'package.json': '{\n  "name": "kv-parser",\n  "version": "1.0.0",\n  "type": "module"\n}\n',
  'src/parser.js': `export function parse(text) {
  return text.split('\\n').map((line) => {
    const [key, value] = line.split('=');
    return { key: key.trim(), value: value.trim() };
  });
}
`,
  'README.md': '# kv-parser\n\nParses key=value lines.\n',
  'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\n- First release.\n',
};

/** One turn of the demo: what the person types and what the model answers, call by call. */
export interface DemoTurn {
  input: string;
  steps: ScriptedStep[];
}

const MAP_LINE = "  return text.split('\\n').map((line) => {";
const FILTERED_MAP_LINE = "  return text.split('\\n').filter((line) => line.trim() !== '').map((line) => {";

/** Turn 1 of the main session: read the parser, fix it with `edit`. */
export const FIX_TURN: DemoTurn = {
  input: 'Why does the parser choke on empty lines?',
  steps: [
    {
      reasoning: 'Probably the split on "=": an empty line has no "=".',
      text: 'Let me read the parser first.',
      toolCalls: [{ toolName: 'read', input: { path: 'src/parser.js' } }],
    },
    {
      text: 'An empty line has no "=", so value is undefined and value.trim() throws. I will skip empty lines.',
      toolCalls: [{ toolName: 'edit', input: { path: 'src/parser.js', oldString: MAP_LINE, newString: FILTERED_MAP_LINE } }],
    },
    { text: 'Fixed: parse() now skips empty lines before splitting on "=".' },
  ],
};

const TEST_FILE = `import { parse } from '../src/parser.js';

const entries = parse('a=1\\n\\nb=2\\n');
if (entries.length !== 2) throw new Error(\`expected 2 entries, got \${entries.length}\`);
console.log('ok - empty lines are skipped');
`;

/** Turn 2: a new test (`write`), run in `bash`, which also appends to the changelog; the README by `edit`. */
export const TEST_TURN: DemoTurn = {
  input: 'Add a test, run it, note the fix in the changelog, and document the format.',
  steps: [
    {
      text: 'Adding a test, then running it; if it passes the same command notes the fix in CHANGELOG.md.',
      toolCalls: [
        { toolName: 'write', input: { path: 'test/parser.test.js', content: TEST_FILE } },
        { toolName: 'bash', input: { command: "node test/parser.test.js && printf '\\n## 1.0.1\\n\\n- Empty lines are skipped.\\n' >> CHANGELOG.md" } },
      ],
    },
    {
      text: 'The test passes. Now the README.',
      toolCalls: [
        { toolName: 'edit', input: { path: 'README.md', oldString: 'Parses key=value lines.', newString: 'Parses key=value lines; empty lines are skipped.' } },
      ],
    },
    { text: 'Added test/parser.test.js (it passes), noted 1.0.1 in CHANGELOG.md, and documented empty lines in README.md.' },
  ],
};

/** The first turn of the isolated fork, in its own directory. */
export const TOKENIZER_TURN: DemoTurn = {
  input: 'Try a different approach here: a streaming tokenizer.',
  steps: [
    {
      text: 'Sketching it in a new file.',
      toolCalls: [
        {
          toolName: 'write',
          input: {
            path: 'src/tokenizer.js',
            content:
              "export function* tokenize(lines) {\n  for (const line of lines) {\n    const at = line.indexOf('=');\n    if (at > 0) yield { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };\n  }\n}\n",
          },
        },
      ],
    },
    { text: 'Added src/tokenizer.js: a generator that yields one entry per key=value line.' },
  ],
};

/** The side chat's question and its answer (no tools). */
export const SIDE_TURN: DemoTurn = {
  input: 'Quick question: what does split do with a trailing newline?',
  steps: [{ text: 'It yields a final empty string: "a=1\\n".split("\\n") is ["a=1", ""]. The new filter drops it too.' }],
};

/** Every step, in the order the model is called during the demo. */
export const DEMO_TURNS: readonly DemoTurn[] = [FIX_TURN, TEST_TURN, TOKENIZER_TURN, SIDE_TURN];
