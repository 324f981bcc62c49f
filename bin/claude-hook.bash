#!/bin/bash
# Claude Code's and Codex CLI's hook command (installed by `waypoint hooks install claude|codex`):
#   /bin/bash claude-hook.bash NODE WAYPOINT_JS hooks run claude|codex [--store FILE | --store-file URL_FILE]
# One process and bash builtins only: it reads the resident helper's port and tokens from
# claude-hooks/helper.port (mode 0600, beside the store), connects to it on 127.0.0.1 through
# bash's /dev/tcp, checks the helper's greeting against the server token (so a process that took
# over a dead helper's port learns nothing), sends the client token, the event and a NUL, and
# waits for `ok`. A Codex event's token line says so (`CLIENT_TOKEN codex`): the store's one helper
# records both agents' events, and a helper too old to know Codex refuses that line. Without a port
# file, with WAYPOINT_HOOK_HELPER=off, a refused connection, a wrong greeting or any other answer,
# it runs the Node client (the arguments after this script's name) with the event on its stdin:
# that starts the helper and handles the event itself. A reply that times out after the event was
# sent is not retried: the helper has it and finishes it. Always exits 0: the agent goes on
# whatever happens here (the handler logs its own failures).
LC_ALL=C
store=
agent=
previous=
for argument in "$@"; do
  # A database store is named by the file its URL is kept in: the helper's endpoint is beside it.
  [[ $previous == --store || $previous == --store-file ]] && store=$argument
  [[ $previous == run && -z $agent ]] && agent=$argument
  previous=$argument
done
# What the token line asks for after the token: nothing for Claude (as every client sent before).
kind=
[[ $agent == codex ]] && kind=' codex'
if [[ -z $store ]]; then
  home=${WAYPOINT_HOME-}
  [[ -z ${home//[[:space:]]/} ]] && home=${HOME:-~}/.waypoint
  store=${home%/}/waypoint.db
fi
endpoint=${store%/*}/claude-hooks/helper.port
[[ $endpoint == "$store" ]] && endpoint=claude-hooks/helper.port
event=
have_event=0
if [[ ${WAYPOINT_HOOK_HELPER-} != off ]] && read -r port server client <"$endpoint" 2>/dev/null &&
  [[ $port =~ ^[0-9]+$ && -n $client ]] && exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  if IFS= read -r -t 10 greeting <&3 && [[ $greeting == "$server" ]]; then
    # The event: read by the builtin up to 8 KiB (one byte a system call on a pipe or socket), the
    # rest of a larger one by cat. The x keeps trailing newlines from command substitution.
    IFS= read -r -d '' -N 8192 event
    if ((${#event} == 8192)); then
      rest=$(cat; printf x)
      event+=${rest%x}
    fi
    have_event=1
    if printf '%s%s\n%s\0' "$client" "$kind" "$event" >&3; then
      IFS= read -r -t 55 reply <&3
      status=$?
      [[ $reply == ok ]] && exit 0
      # Timed out: the helper has the event and finishes it (as the Node client does).
      ((status > 128)) && exit 0
    fi
  fi
  exec 3>&-
fi 2>/dev/null
if ((have_event)); then
  printf '%s' "$event" | "$@" >/dev/null 2>&1
else
  "$@" >/dev/null 2>&1
fi
exit 0
