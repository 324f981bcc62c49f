import { createInterface } from 'node:readline/promises';

/** Asks a person a yes/no question; resolves true only for "y" or "yes". */
export type Confirm = (question: string) => Promise<boolean>;

/**
 * A yes/no question on the terminal (asked on stderr, so stdout stays the result), or undefined
 * when stdin or stderr is not a terminal: a command that must ask then refuses with a typed error
 * naming the flag that confirms. Enter, "n", Ctrl-C and Ctrl-D all answer no.
 */
export function terminalConfirm(streams: { input?: NodeJS.ReadStream; output?: NodeJS.WriteStream } = {}): Confirm | undefined {
  const input = streams.input ?? process.stdin;
  const output = streams.output ?? process.stderr;
  if (!input.isTTY || !output.isTTY) return undefined;
  return async (question) => {
    const prompt = createInterface({ input, output, terminal: true });
    const cancel = new AbortController();
    prompt.on('SIGINT', () => cancel.abort());
    prompt.on('close', () => cancel.abort());
    try {
      const answer = await prompt.question(`${question} (y/N) `, { signal: cancel.signal });
      return /^\s*y(es)?\s*$/i.test(answer);
    } catch {
      output.write('\n');
      return false;
    } finally {
      prompt.close();
    }
  };
}
