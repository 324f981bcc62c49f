/**
 * Whether process `pid` of this host may still be running: this process is; another is unless the
 * system says no such process exists (`ESRCH`). Any other answer — one we may not signal
 * (`EPERM`), an odd pid — counts as running, so nothing a live process may use is ever taken for
 * a dead one's leftovers.
 */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
