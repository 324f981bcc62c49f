import { unlinkSync } from 'node:fs';

/** Removes `path` if it is there; a name never made, or already gone, is no error. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never created, or already gone
  }
}
