#!/bin/sh
# Claude Code's hook command (installed by `waypoint hooks install claude`):
#   sh claude-hook.sh NODE WAYPOINT_JS hooks run claude [--store FILE | --store-file URL_FILE]
# Hands the event on stdin to the store's resident helper with `curl --unix-socket`, so no Node
# process starts for it. Without curl, without a helper (none yet, or a dead one's socket), with
# WAYPOINT_HOOK_HELPER=off, or when the hand-over fails, it runs the Node client (the arguments
# after this script's name), which starts the helper and handles the event itself. Always exits 0:
# Claude Code goes on whatever happens here (the handler logs its own failures).
store=
previous=
for argument in "$@"; do
  # A database store is named by the file its URL is kept in: the helper's socket is beside it.
  [ "$previous" = --store ] || [ "$previous" = --store-file ] && store=$argument
  previous=$argument
done
if [ -z "$store" ]; then
  home=$(printf '%s' "${WAYPOINT_HOME-}" | tr -d ' \t\n\r')
  if [ -n "$home" ]; then home=$WAYPOINT_HOME; else home=${HOME:-~}/.waypoint; fi
  store=${home%/}/waypoint.db
fi
socket=${store%/*}/claude-hooks/helper.sock
[ "$socket" = "$store" ] && socket=claude-hooks/helper.sock
# The event, byte for byte (the x keeps trailing newlines from command substitution).
input=$(cat; printf x)
input=${input%x}
if [ "${WAYPOINT_HOOK_HELPER-}" != off ] && [ -S "$socket" ] && command -v curl >/dev/null 2>&1; then
  reply=$(printf '%s' "$input" | curl -sS --max-time 55 --unix-socket "$socket" -H 'Content-Type: application/json' -H 'Expect:' \
    --data-binary @- http://waypoint/claude-hook 2>/dev/null)
  status=$?
  [ "$status" -eq 0 ] && [ "$reply" = ok ] && exit 0
  # Timed out: the helper has the event and finishes it (as the Node client does).
  [ "$status" -eq 28 ] && exit 0
fi
printf '%s' "$input" | "$@" >/dev/null 2>&1
exit 0
