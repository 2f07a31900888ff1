#!/bin/sh
# A fake renderer that hangs past any timeout: it starts a child (as a
# real script would start its tools) and waits. Both pids go to
# hang.pids in its folder, so a test can check that both were stopped.
sleep 300 &
echo "$$ $!" > hang.pids
wait
