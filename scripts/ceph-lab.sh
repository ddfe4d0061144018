#!/usr/bin/env bash
# Vendored from the project's shared lab scripts (../shared/ceph/ceph-lab.sh, with its README's caveats
# summarised in Tests/SandboxBackupTests/S3/CephGateway.swift), because CI starts from a clean clone.
# ceph-lab.sh - throw-away single-node Ceph cluster (1 mon, 1 memstore OSD,
# 1 radosgw/beast on 127.0.0.1) for automated S3 tests. No systemd, no mgr,
# no cephx. Everything (config, data, logs, sockets) lives in $CEPH_LAB_DIR.
#
#   ceph-lab.sh start    # cold-starts the cluster, prints S3_* lines on stdout
#   ceph-lab.sh env      # re-prints the S3_* lines of a running cluster
#   ceph-lab.sh status   # daemon PIDs + `ceph -s`
#   ceph-lab.sh stop     # kills exactly the daemons it started, removes the dir
#
# Typical use:  ceph-lab.sh start >s3.env && set -a && . ./s3.env && set +a   # ...tests... ; ceph-lab.sh stop
#
# Needs (Debian 12): apt-get install -y --no-install-recommends \
#                      ceph-mon ceph-osd radosgw ceph-common curl
#
# Tunables (environment):
#   CEPH_LAB_DIR        state dir               (default $TMPDIR/ceph-lab/cluster)
#   CEPH_LAB_RGW_PORT   S3 port                 (default: first free of 7480..7579)
#   CEPH_LAB_MON_PORT   mon msgr2 port          (default: first free of 40300..40399)
#   CEPH_LAB_ACCESS_KEY / CEPH_LAB_SECRET_KEY   fixed S3 credentials
#   CEPH_LAB_MEM_BYTES  memstore capacity (RAM!) (default 8 GiB; allocated on use)
#   CEPH_LAB_TIMEOUT    max seconds for `start` (default 240)
#   CEPH_LAB_STOP_GRACE seconds between SIGTERM and SIGKILL on stop (default 2)
set -euo pipefail

LAB_DIR=${CEPH_LAB_DIR:-${TMPDIR:-/tmp}/ceph-lab/cluster}
ACCESS_KEY=${CEPH_LAB_ACCESS_KEY:-LABACCESSKEY000000001}
SECRET_KEY=${CEPH_LAB_SECRET_KEY:-labsecretkey0000000000000000000000000001}
MEM_BYTES=${CEPH_LAB_MEM_BYTES:-$((8 * 1024 * 1024 * 1024))}
TIMEOUT=${CEPH_LAB_TIMEOUT:-240}
STOP_GRACE=${CEPH_LAB_STOP_GRACE:-2} # seconds between SIGTERM and SIGKILL (data is discarded anyway)
REGION=us-east-1
S3_UID=lab
RGW_NAME=client.rgw.lab
CONF=$LAB_DIR/ceph.conf
RUN=$LAB_DIR/run
LOG=$LAB_DIR/log

log() { printf '[ceph-lab %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need_bins() {
  local missing=() b
  for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl setsid timeout; do
    command -v "$b" >/dev/null 2>&1 || missing+=("$b")
  done
  ((${#missing[@]} == 0)) || die "missing: ${missing[*]} -- run: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() { # pick_port <explicit-or-empty> <first> <last> <what>
  local p
  if [[ -n $1 ]]; then
    port_busy "$1" && die "$4 port $1 (explicitly requested) is already in use"
    echo "$1"; return
  fi
  for ((p = $2; p <= $3; p++)); do port_busy "$p" || { echo "$p"; return; }; done
  die "no free $4 port in $2..$3"
}

ceph_cli() { timeout 30 ceph -c "$CONF" --connect-timeout 15 "$@"; }

# PID bookkeeping: run/<name>.pid is written by us from $!; a PID is only ever
# signalled if it is still a ceph-mon/ceph-osd/radosgw whose command line names our ceph.conf.
ours() {
  local c
  c=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
  [[ $c == *" -c $CONF "* ]] || return 1
  case ${c%% *} in ceph-mon | ceph-osd | radosgw | */ceph-mon | */ceph-osd | */radosgw) return 0 ;; esac
  return 1
}

spawn() { # spawn <name> <cmd...>   (daemon runs in foreground mode, own session)
  local name=$1; shift
  setsid "$@" -f </dev/null >>"$LOG/$name.out" 2>&1 &
  echo $! >"$RUN/$name.pid"
}

kill_all() { # SIGTERM all recorded daemons at once, SIGKILL what is left after the grace period
  local f pid n pids=() left
  for f in "$RUN"/*.pid; do
    [[ -e $f ]] || continue
    pid=$(<"$f")
    if [[ $pid =~ ^[0-9]+$ ]] && ours "$pid"; then pids+=("$pid"); kill -TERM "$pid" 2>/dev/null || true; fi
  done
  for ((n = 0; n <= 20 * STOP_GRACE; n++)); do
    left=(); for pid in "${pids[@]}"; do ours "$pid" && left+=("$pid"); done
    ((${#left[@]})) || break
    sleep 0.05
  done
  if ((${#left[@]})); then
    for pid in "${left[@]}"; do ours "$pid" && kill -KILL "$pid" 2>/dev/null || true; done
    for ((n = 0; n < 100; n++)); do
      left=(); for pid in "${pids[@]}"; do ours "$pid" && left+=("$pid"); done
      ((${#left[@]})) || break
      sleep 0.05
    done
    ((${#left[@]})) && log "warning: pids ${left[*]} still alive after SIGKILL"
  fi
  rm -f "$RUN"/*.pid
}

fail() { # fail <message> <logfile>
  log "ERROR: $1"
  if [[ -n ${2:-} && -e $2 ]]; then
    log "---- last 40 lines of $2 ----"; tail -n 40 "$2" >&2
    log "---- end of $2 ----"
  fi
  log "stopping the daemons started so far; logs kept in $LOG (removed by '$0 stop')"
  kill_all
  exit 1
}

alive() { local f=$RUN/$1.pid; [[ -e $f ]] && ours "$(<"$f")"; }

daemon_log() { case $1 in mon) echo "$LOG/mon.a.log" ;; osd.0) echo "$LOG/osd.0.log" ;; rgw) echo "$LOG/$RGW_NAME.log" ;; esac; }

check_alive() { # abort early when a daemon died instead of waiting for the timeout
  local d
  for d in "$@"; do
    alive "$d" && continue
    [[ -s $LOG/$d.out ]] && { log "---- stdout/stderr of $d ----"; tail -n 20 "$LOG/$d.out" >&2; }
    fail "daemon '$d' exited during startup" "$(daemon_log "$d")"
  done
}

wait_for() { # wait_for <what> <logfile> <daemons-that-must-live> <cmd...>
  local what=$1 logf=$2 daemons=$3; shift 3
  while :; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    # shellcheck disable=SC2086
    check_alive $daemons
    ((SECONDS < DEADLINE)) || fail "timed out after ${TIMEOUT}s waiting for $what" "$logf"
    sleep 0.5
  done
}

osd_up() { local out; out=$(ceph_cli osd dump) && [[ $out == *$'\n'"osd.0 up "* ]]; }

s3_signed_get() { # signed ListBuckets; succeeds on HTTP 200 only
  curl -sf -o /dev/null --max-time 10 --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://127.0.0.1:$(<"$LAB_DIR/rgw_port")/"
}

print_env() {
  echo "S3_ENDPOINT=http://127.0.0.1:$(<"$LAB_DIR/rgw_port")"
  echo "S3_ACCESS_KEY=$ACCESS_KEY"
  echo "S3_SECRET_KEY=$SECRET_KEY"
  echo "S3_REGION=$REGION"
}

running() { [[ -e $LAB_DIR/ready ]] && alive mon && alive osd.0 && alive rgw && s3_signed_get; }

write_conf() { # $1 fsid, $2 mon port, $3 rgw port. Ceph meta-variables ($name...) stay literal.
  cat >"$CONF" <<EOF
[global]
fsid = $1
mon_host = [v2:127.0.0.1:$2]
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
# with auth=none only 'crc' wire mode is possible; radosgw (a client-type daemon) defaults
# ms_mon_client_mode to 'secure' and then fails with "get_initial_auth_request returned -13"
ms_mon_client_mode = crc secure
ms_client_mode = crc secure
ms_bind_msgr1 = false
ms_bind_msgr2 = true
ms_bind_ipv6 = false
public_addr = 127.0.0.1
run_dir = $RUN
crash_dir = $LAB_DIR/crash
keyring = $LAB_DIR/keyring
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_allow_pool_delete = true
mon_warn_on_pool_no_redundancy = false
mon_max_pg_per_osd = 1000
mon_data_avail_warn = 2
mon_data_avail_crit = 1
mon_warn_on_insecure_global_id_reclaim_allowed = false

[mon]
mon_data = $LAB_DIR/mon/\$cluster-\$id
# single mon: commit map changes (pool creation by radosgw) every 0.1s instead of 1s (13s -> 3s start)
paxos_propose_interval = 0.1
mon_cluster_log_file = $LOG/cluster.log
log_file = $LOG/\$name.log
admin_socket = $RUN/\$name.asok

[osd]
osd_data = $LAB_DIR/osd/\$cluster-\$id
osd_objectstore = memstore
memstore_device_bytes = $MEM_BYTES
osd_crush_initial_weight = 1
osd_fast_shutdown = true
log_file = $LOG/\$name.log
admin_socket = $RUN/\$name.asok

[$RGW_NAME]
rgw_frontends = beast endpoint=127.0.0.1:$3
rgw_data = $LAB_DIR/rgw
rgw_thread_pool_size = 64
rgw_init_timeout = $TIMEOUT
# memstore keeps everything in RAM: reclaim deleted objects' data quickly instead of after 2h
rgw_gc_obj_min_wait = 5
rgw_gc_processor_period = 15
log_file = $LOG/\$name.log
admin_socket = $RUN/\$name.asok
EOF
}

cmd_start() {
  need_bins
  if running 2>/dev/null; then log "already running in $LAB_DIR"; print_env; return 0; fi
  if [[ -e $LAB_DIR ]]; then log "removing stale state in $LAB_DIR"; cmd_stop >/dev/null; fi
  DEADLINE=$((SECONDS + TIMEOUT))
  local t0=$SECONDS fsid mon_port rgw_port uuid osd_id
  mkdir -p "$RUN" "$LOG" "$LAB_DIR/mon" "$LAB_DIR/osd" "$LAB_DIR/rgw" "$LAB_DIR/crash"
  trap 'fail "interrupted" ""' INT TERM
  trap 'fail "unexpected error near line $LINENO" ""' ERR
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(pick_port "${CEPH_LAB_MON_PORT:-}" 40300 40399 mon)
  rgw_port=$(pick_port "${CEPH_LAB_RGW_PORT:-}" 7480 7579 rgw)
  echo "$rgw_port" >"$LAB_DIR/rgw_port"
  write_conf "$fsid" "$mon_port" "$rgw_port"

  log "mon: mkfs + start (msgr2 127.0.0.1:$mon_port)"
  ceph-authtool --create-keyring "$LAB_DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$LAB_DIR/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
    --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$LAB_DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" -i a --mkfs --monmap "$LAB_DIR/monmap" --keyring "$LAB_DIR/keyring" \
    >"$LOG/mon-mkfs.out" 2>&1 || fail "ceph-mon --mkfs failed" "$LOG/mon-mkfs.out"
  spawn mon ceph-mon -c "$CONF" -i a
  wait_for "the monitor to form quorum" "$LOG/mon.a.log" mon ceph_cli quorum_status

  log "osd: create + mkfs (memstore, $((MEM_BYTES >> 20)) MiB cap) + start"
  uuid=$(cat /proc/sys/kernel/random/uuid)
  osd_id=$(ceph_cli osd new "$uuid" 2>>"$LOG/osd-new.out") || fail "'ceph osd new' failed" "$LOG/osd-new.out"
  [[ $osd_id == 0 ]] || fail "unexpected osd id '$osd_id'" ""
  mkdir -p "$LAB_DIR/osd/ceph-0"
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$uuid" >"$LOG/osd-mkfs.out" 2>&1 ||
    fail "ceph-osd --mkfs failed" "$LOG/osd-mkfs.out"
  spawn osd.0 ceph-osd -c "$CONF" -i 0
  wait_for "osd.0 to be up" "$LOG/osd.0.log" "mon osd.0" osd_up

  log "rgw: start (beast on 127.0.0.1:$rgw_port)"
  spawn rgw radosgw -c "$CONF" -n "$RGW_NAME"
  wait_for "radosgw to answer HTTP" "$LOG/$RGW_NAME.log" "mon osd.0 rgw" \
    curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$rgw_port/"

  log "rgw: create S3 user '$S3_UID'"
  timeout 60 radosgw-admin -c "$CONF" user create --uid "$S3_UID" --display-name "ceph-lab test user" \
    --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" >"$LOG/user-create.out" 2>&1 ||
    fail "radosgw-admin user create failed" "$LOG/user-create.out"
  wait_for "a signed S3 request to succeed" "$LOG/$RGW_NAME.log" "mon osd.0 rgw" s3_signed_get

  trap - INT TERM ERR
  touch "$LAB_DIR/ready"
  log "ready in $((SECONDS - t0))s (state: $LAB_DIR)"
  print_env
}

cmd_stop() {
  if [[ ! -e $LAB_DIR ]]; then log "nothing to stop ($LAB_DIR does not exist)"; return 0; fi
  [[ -e $CONF ]] || log "warning: $CONF missing, cannot verify PIDs; only removing $LAB_DIR"
  kill_all
  rm -rf -- "$LAB_DIR"
  log "stopped, removed $LAB_DIR"
}

cmd_status() {
  local f
  for f in "$RUN"/*.pid; do
    [[ -e $f ]] || { log "no daemons recorded in $RUN"; return 1; }
    if ours "$(<"$f")"; then echo "$(basename "$f" .pid): pid $(<"$f") running"; else echo "$(basename "$f" .pid): not running"; fi
  done
  ceph_cli -s || true
  running && print_env
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) running || die "not running"; print_env ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
