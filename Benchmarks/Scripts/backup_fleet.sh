#!/bin/sh
# A fleet on one repository (issue 30): DEVICES sandbox homes, each with an app whose Documents hold
# the same 8 MiB file and 1-2 MiB of its own, back up at once into AT-ONCE, then one after another
# into ONE-BY-ONE (each a fresh repository: a folder, or s3://BUCKET/PREFIX with the bucket made
# and rclone's remote "ceph" configured, as in BENCHMARKS.md). Prints both wall times, and for each
# repository its objects, bytes and the blobs `check` finds stored twice.
#
# usage: backup_fleet.sh SANDBOX-BINARY WORK-DIR AT-ONCE ONE-BY-ONE [DEVICES]
set -eu
sandbox=$1 work=$2 at_once=$3 one_by_one=$4 devices=${5:-4}
app=com.example.fleet
mkdir -p "$work"
head -c $((8 << 20)) /dev/urandom > "$work/shared.bin"
i=0
while [ $i -lt "$devices" ]; do
    home="$work/device-$i"
    SANDBOX_HOME=$home "$sandbox" create $app > /dev/null
    head -c $(((1 << 20) + i * (1 << 18))) /dev/urandom > "$work/own-$i.bin"
    SANDBOX_HOME=$home "$sandbox" put $app "$work/shared.bin" Documents/shared.bin
    SANDBOX_HOME=$home "$sandbox" put $app "$work/own-$i.bin" Documents/own.bin
    i=$((i + 1))
done

now() { date +%s.%N; }

start=$(now)
pids=""
i=0
while [ $i -lt "$devices" ]; do
    SANDBOX_HOME="$work/device-$i" "$sandbox" backup $app "$at_once" > "$work/at-once-$i.out" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
for pid in $pids; do wait "$pid" || { echo "a backup at once failed:"; cat "$work"/at-once-*.out; exit 1; }; done
end=$(now)
echo "at once:      $(echo "$end - $start" | bc) s"

start=$(now)
i=0
while [ $i -lt "$devices" ]; do
    SANDBOX_HOME="$work/device-$i" "$sandbox" backup $app "$one_by_one" > "$work/one-by-one-$i.out" 2>&1
    i=$((i + 1))
done
end=$(now)
echo "one by one:   $(echo "$end - $start" | bc) s"

for repository in "$at_once" "$one_by_one"; do
    case $repository in
    s3://*) size=$(rclone size "ceph:${repository#s3://}" | tr '\n' ' ') ;;
    *) size="$(find "$repository" -type f | wc -l) objects, $(du -sb "$repository" | cut -f1) bytes" ;;
    esac
    duplicates=$("$sandbox" check "$repository" --json | sed 's/.*"duplicateBlobs":\([0-9]*\).*/\1/')
    echo "$repository: $size; $duplicates blobs stored twice"
done
