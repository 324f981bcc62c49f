import { existsSync } from 'node:fs';

/** Poll until `condition` holds (an ordering wait, not a timing assertion); fails after `limitMs`. */
export async function waitUntil(condition: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const fileExists = (path: string) => () => existsSync(path);
