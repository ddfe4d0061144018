#!/bin/bash
# share_concurrent_downloads.sh [LABEL]: `sandbox share` (SANDBOX, default .build/release/sandbox;
# it runs sandbox-extras beside it) against nginx (one worker, sendfile on) serving the same
# MIB-MiB file (default 100): for each N in COUNTS (default "1 20 100"), a fresh share and N
# parallel `curl -o /dev/null` of the whole file from each server; prints a markdown row per N:
# wall time of each batch, its ratio, and the peak of VmRSS sampled every 20 ms during the batch
# (the share, with its idle RSS after one small GET; nginx's worker). Scratch in $TMPDIR, removed.
set -e
LABEL=${1:-run}
SANDBOX=${SANDBOX:-.build/release/sandbox}
MIB=${MIB:-100}
T=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-concurrent-XXXXXX")
trap 'kill $SHARE $NGINX 2>/dev/null; rm -rf "$T"' EXIT
export SANDBOX_HOME=$T/home
$SANDBOX create com.example.conc --file-sharing >/dev/null
DOCS=$($SANDBOX path com.example.conc documents)
head -c $((MIB<<20)) /dev/urandom > $DOCS/large.bin
PORT=$(python3 -c "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])")
mkdir -p $T/nginx
cat > $T/nginx/nginx.conf <<NG
$([ "$(id -u)" = 0 ] && echo "user root root;")
worker_processes 1;
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log warn;
events { worker_connections 1024; }
http { access_log off; sendfile on; default_type application/octet-stream;
  client_body_temp_path $T/nginx/body; proxy_temp_path $T/nginx/proxy; fastcgi_temp_path $T/nginx/fcgi; uwsgi_temp_path $T/nginx/uwsgi; scgi_temp_path $T/nginx/scgi;
  server { listen 127.0.0.1:$PORT; location / { root $DOCS; } } }
NG
/usr/sbin/nginx -c $T/nginx/nginx.conf -p $T/nginx >/dev/null 2>&1 &
NGINX=$!
sleep 1
WORKER=$(pgrep -P $NGINX | head -1)
rss() { awk '/VmRSS/{print $2}' /proc/$1/status 2>/dev/null || echo 0; }
sample() { # PID FILE: max VmRSS (KiB) until FILE.stop exists
  local max=0 v
  while [ ! -e $2.stop ]; do v=$(rss $1); [ "${v:-0}" -gt $max ] && max=$v; sleep 0.02; done
  echo $max > $2
}
run() { # N URL AUTH PID: seconds and peak RSS MiB
  rm -f $T/peak $T/peak.stop; sample $4 $T/peak & local sampler=$!
  local start=$(date +%s.%N)
  local curls=()
  for i in $(seq 1 $1); do curl -sf $3 -o /dev/null "$2" & curls+=($!); done
  wait "${curls[@]}"
  local end=$(date +%s.%N)
  touch $T/peak.stop; wait $sampler
  printf "%.2f %.1f" $(echo "$end - $start" | bc) $(echo "scale=1; $(cat $T/peak) / 1024" | bc)
}
echo "# $LABEL: $(date -u +%FT%TZ), ${MIB} MiB file, load $(cut -d' ' -f1 /proc/loadavg)"
echo "| N | share s | nginx s | share/nginx time | share peak VmRSS MiB (idle) | nginx worker peak VmRSS MiB |"
curl -sf -o /dev/null http://127.0.0.1:$PORT/large.bin
for N in ${COUNTS:-1 20 100}; do
  $SANDBOX share com.example.conc --port 0 >$T/share.out 2>$T/share.err &
  SHARE=$!
  for i in $(seq 1 600); do grep -q "Pairing code:" $T/share.out 2>/dev/null && break; sleep 0.1; done
  URL=$(grep "URL:" $T/share.out | awk '{print $2}')
  CODE=$(grep "Pairing code:" $T/share.out | awk '{print $3}')
  curl -sf -u sandbox:$CODE -o /dev/null -r 0-99 ${URL}large.bin
  IDLE=$(echo "scale=1; $(rss $SHARE) / 1024" | bc)
  read S SR <<< "$(run $N ${URL}large.bin "-u sandbox:$CODE" $SHARE)"
  read G GR <<< "$(run $N http://127.0.0.1:$PORT/large.bin "" $WORKER)"
  echo "| $N | $S | $G | $(echo "scale=2; $S / $G" | bc) | $SR ($IDLE) | $GR |"
  kill $SHARE; wait $SHARE 2>/dev/null || true
done
kill -QUIT $NGINX; wait $NGINX 2>/dev/null || true
rm -rf $T
