#!/bin/bash
# sandboxd_hostile_rounds.sh SANDBOXD HOME APP URL [ROUNDS]: starts a fresh sandboxd for HOME (whose
# container APP exists) and runs ROUNDS rounds (3): a background download of URL (nginx serving
# 1 GiB) alone, then again while 1,000 hostile connections (sandboxd_hostile_clients.py) are held;
# prints both times and the daemon's VmHWM/VmRSS after each round and 3 s after the clients left.
set -u
B=$1 H=$2 APP=$3 URL=$4 N=${5:-3}
S=$(cd "$(dirname "$0")" && pwd)
R=$(mktemp -d) LOG=$(mktemp)
"$B" --home "$H" --runtime-directory "$R" --idle-exit 3600 --max-connections-per-process 1000 > "$R/daemon.log" 2>&1 &
D=$!
trap 'kill $D 2>/dev/null; rm -f "$LOG"' EXIT
for _ in $(seq 100); do [ -S "$R/sandboxd.sock" ] && break; sleep 0.1; done
mem() { grep -E "VmHWM|VmRSS" /proc/$D/status | tr -s ' \n\t' ' '; }
download() { python3 "$S/sandboxd_background_download.py" "$R/sandboxd.sock" "$H" "$APP" "$URL" | tail -1; }
echo "at rest: $(mem)"
for r in $(seq "$N"); do
  alone=$(download)
  python3 "$S/sandboxd_hostile_clients.py" "$R/sandboxd.sock" $D "$H" "$APP" 14 > "$LOG" &
  clients=$!
  for _ in $(seq 100); do grep -q opened "$LOG" && break; sleep 0.1; done
  sleep 5.5  # the half hellos' deadline frees places for the app's connection
  beside=$(download)
  wait $clients
  echo "round $r: alone [$alone] beside the hostile clients [$beside] $(grep opened "$LOG"); $(mem)"
  sleep 3
  echo "  3 s after they left: $(mem)"
done
