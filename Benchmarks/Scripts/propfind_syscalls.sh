#!/bin/bash
# Counts the share's listxattrat (syscall 465, which this strace cannot name) and statx calls for
# one PROPFIND Depth 1 of 1,000 files: allprop, then the name list Finder-like clients send.
set -e
R=$(mktemp -d); trap 'rm -rf "$R"' EXIT; export SANDBOX_HOME=$R/home
S=${SANDBOX:-$(dirname "$0")/../../.build/debug/sandbox}
$S create com.x --file-sharing >/dev/null
D=$($S path com.x documents); mkdir -p $D/f; for i in $(seq 1 1000); do echo x > $D/f/$i.txt; done
$S share com.x --port 0 > $R/out 2>$R/err & P=$!
for i in $(seq 1 100); do grep -q "Pairing code" $R/out 2>/dev/null && break; sleep 0.1; done
PORT=$(grep -o "127.0.0.1:[0-9]*" $R/out | head -1 | cut -d: -f2); CODE=$(grep "Pairing code" $R/out | awk '{print $3}')
PROP='<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/><D:getcontenttype/></D:prop></D:propfind>'
for body in "" "$PROP"; do
  strace -f -qq -p $P -o $R/t.txt & T=$!; sleep 1
  curl -s -u sandbox:$CODE -X PROPFIND -H "Depth: 1" --data "$body" http://127.0.0.1:$PORT/f/ -o /dev/null
  sleep 0.5; kill -INT $T; wait $T 2>/dev/null || true
  label=allprop; [ -n "$body" ] && label="name list"
  echo "$label: listxattrat $(grep -c 'syscall_0x1d1' $R/t.txt), statx $(grep -c 'statx(' $R/t.txt), flistxattr $(grep -c 'flistxattr(' $R/t.txt)"
done
kill $P; wait $P 2>/dev/null || true
