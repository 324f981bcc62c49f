"""Runs a command in a real pseudo-terminal and relays it over pipes, so a test can type keys.

usage: python3 pty-host.py <command> [args...]   (PTY_COLS / PTY_ROWS set the window size)
stdin (a pipe) is written to the terminal as typed keys; everything the program draws comes out on
stdout, escape sequences included. Exits with the program's exit code (128 + signal if killed).
"""
import os
import pty
import select
import signal
import struct
import sys
import fcntl
import termios

cols = int(os.environ.get('PTY_COLS', '100'))
rows = int(os.environ.get('PTY_ROWS', '40'))
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])

signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGKILL))
stdin_open = True
while True:
    watch = [fd] + ([0] if stdin_open else [])
    try:
        ready, _, _ = select.select(watch, [], [])
    except InterruptedError:
        continue
    if 0 in ready:
        data = os.read(0, 4096)
        if not data:
            stdin_open = False
        else:
            os.write(fd, data)
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)

_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    sys.exit(128 + os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
