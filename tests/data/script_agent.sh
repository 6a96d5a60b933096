#!/bin/sh
# A stand-in agent that is a shell script (issue 15): tmux reports its pane's
# command as "sh", yet it is the configured agent, not a shell at a prompt.
echo "script agent ready"
while printf '> ' && read -r line; do
  echo "script heard: $line"
done
