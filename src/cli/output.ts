/** Where a command's words go. Results go to stdout; progress and notes to stderr, so `--json` stdout stays one document. */
export interface Output {
  /** A line of the result (stdout), for what must appear before an error (a fork's preview). */
  print(line: string): void;
  /** A line for the person (stderr): hints, warnings. */
  note(line: string): void;
  /** A progress reporter for a long operation; call `done()` when it ends. */
  progress(label: string): Progress;
}

export interface Progress {
  update(done: number, total: number): void;
  /** A phase of an operation whose size is not known ("marking", "sweeping"). */
  step(text: string): void;
  done(summary?: string): void;
}

export interface StreamOutputOptions {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Draw a bar (terminal) or print plain lines; defaults to whether stderr is a terminal. */
  tty?: boolean;
}

/** Output on the process streams: a redrawn bar on a terminal, plain lines (every 10%) otherwise. */
export function streamOutput(options: StreamOutputOptions = {}): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const tty = options.tty ?? Boolean(stderr.isTTY);
  if (stdout === process.stdout && process.stdout.listenerCount('error') === 0) {
    // A reader that stops early (`waypoint log … | head`) is not a failure.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  return {
    print: (line) => void stdout.write(`${line}\n`),
    note: (line) => void stderr.write(`${line}\n`),
    progress: (label) => (tty ? barProgress(label, stderr) : lineProgress(label, stderr)),
  };
}

/** A bar redrawn in place on a terminal line (cleared by `done`). */
export function barProgress(label: string, stream: NodeJS.WritableStream & { columns?: number }): Progress {
  let drawn = false;
  let lastDraw = 0;
  const draw = (text: string) => {
    stream.write(`\r\x1b[2K${text}`);
    drawn = true;
  };
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - lastDraw < 50) return;
      lastDraw = now;
      const width = Math.max(10, Math.min(30, (stream.columns || 80) - label.length - 20));
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(share * width);
      draw(`${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    },
    step: (text) => draw(`${label}: ${text}`),
    done(summary) {
      if (drawn) stream.write('\r\x1b[2K');
      if (summary) stream.write(`${label}: ${summary}\n`);
    },
  };
}

/** Plain progress lines (every 10%), for pipes and logs. */
export function lineProgress(label: string, stream: NodeJS.WritableStream): Progress {
  let lastTenth = -1;
  return {
    update(done, total) {
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${label}: ${done}/${total}\n`);
    },
    step: (text) => void stream.write(`${label}: ${text}\n`),
    done(summary) {
      if (summary) stream.write(`${label}: ${summary}\n`);
    },
  };
}

/** Output that records lines (for tests and for handlers called as a library). */
export function memoryOutput(): Output & { lines: string[]; notes: string[] } {
  const lines: string[] = [];
  const notes: string[] = [];
  const silent: Progress = { update() {}, step: (text) => void notes.push(text), done: (summary) => void (summary && notes.push(summary)) };
  return { lines, notes, print: (line) => void lines.push(line), note: (line) => void notes.push(line), progress: () => silent };
}
