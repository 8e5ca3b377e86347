#!/usr/bin/env bash
# Usage: sudo bench/helpers-bench.sh [-d seconds] [-w workers] [-c clients]
# Summary: how light the helpers are: client CPU per op, smbd CPU per op and their ratio for
#          smb-login-storm, smb-files and smb-readers, next to the same work done by a
#          python3-samba loop. Not a test: it prints numbers (goals: ratio <= 0.25 for logins
#          and files, <= 0.8 for reads; each helper at least as fast as the python loop).
#
# A private smbd (log level 0) runs on a free port in 4470-4499 in a cgroup v2 group of its
# own; each client runs in another group, so both CPU figures come from one run. Clients
# connect to 127.0.0.77:445, which a private nft table redirects to that port (python3-samba's
# Conn always dials 445), the C helpers included, so both take the same path.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
H=$BENCH_ROOT/helpers
ADDR=127.0.0.77
PY=/usr/bin/python3
TMP=
NFT_TABLE=helpers_bench_$$
CGS=
CGC=

die() {
  echo "helpers-bench: $*" >&2
  exit 1
}

usage() {
  sed -n 's/^# \{0,1\}//; 2,7p' "${BASH_SOURCE[0]}"
  exit "${1:-2}"
}

bench_cleanup() {
  set +e
  [[ -n $TMP ]] && helpers_smbd_stop "$TMP/smbd"
  nft delete table ip "$NFT_TABLE" 2>/dev/null
  local g i
  for g in "$CGC" "$CGS"; do
    [[ -n $g && -d $g ]] || continue
    for ((i = 0; i < 50; i++)); do
      rmdir "$g" 2>/dev/null && break
      sleep 0.1
    done
  done
  [[ -n $TMP ]] && rm -rf "$TMP"
}

# bench_measured OUT CMD...: runs CMD in the client group, its stdout into OUT; prints
# "client_us smbd_us" (the groups' CPU while it ran, plus half a second for smbd to finish)
bench_measured() {
  local out=$1 lines
  shift
  # shellcheck disable=SC2016 # expanded by the inner bash
  lines=$("$H/cgcpu" -g "$CGS" -- "$H/cgcpu" -g "$CGC" -- bash -c '
    echo $BASHPID >"$1/cgroup.procs"
    out=$2
    shift 2
    "$@" >"$out"
    rc=$?
    sleep 0.5
    exit $rc' _ "$CGC" "$out" "$@")
  jq -rs --arg c "$CGC" --arg s "$CGS" \
    '[(.[] | select(.target == $c) | .cpu_us), (.[] | select(.target == $s) | .cpu_us)] | @tsv' \
    <<<"$lines"
}

# bench_row NAME OPS DURATION CLIENT_US SMBD_US: one line of the table
bench_row() {
  awk -v n="$1" -v ops="$2" -v d="$3" -v c="$4" -v s="$5" 'BEGIN {
    if (ops <= 0) { printf "%-28s %8s\n", n, "no ops"; exit }
    printf "%-28s %8d %10.1f %12.1f %12.1f %7.3f\n", n, ops, ops / d, c / ops, s / ops, c / s }'
}

bench_python() {
  cat <<'PYEOF'
import os, sys, time, json, random
from samba.samba3 import libsmb_samba_internal as libsmb
from samba.samba3 import param as s3param
from samba import credentials

mode, workers, seconds, conf, creds_file, host, share, arg = sys.argv[1:9]
workers, seconds = int(workers), float(seconds)
kv = dict(l.rstrip("\n").split("=", 1) for l in open(creds_file) if "=" in l)

def connect():
    lp = s3param.get_context()  # a plain samba.param.LoadParm fails with INVALID_PARAMETER_MIX
    lp.load(conf)
    c = credentials.Credentials()
    c.guess(lp)
    c.set_username(kv["username"].strip())
    c.set_password(kv["password"].strip())
    c.set_domain(kv.get("domain", "").strip())
    c.set_kerberos_state(credentials.DONT_USE_KERBEROS)
    return lp, c

def worker(i, wfd):
    lp, c = connect()
    ops = 0
    if mode == "login":
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            conn = libsmb.Conn(host, share, lp, c)
            conn.chkpath("")
            del conn
            ops += 1
    elif mode == "files":
        conn = libsmb.Conn(host, share, lp, c)
        d = "pybench.%d.%d" % (os.getppid(), i)
        conn.mkdir(d)
        data = b"x" * (int(arg) * 1024)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            conn.savefile("%s\\f%07d" % (d, ops), data)
            ops += 1
        for n in range(ops):
            conn.unlink("%s\\f%07d" % (d, n))
        conn.rmdir(d)
    elif mode == "read":
        conn = libsmb.Conn(host, share, lp, c)
        f = conn.create(arg, DesiredAccess=0x120089, ShareAccess=7, CreateDisposition=1)
        blocks = int(sys.argv[9]) // 4096
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if len(conn.read(f, random.randrange(blocks) * 4096, 4096)) == 4096:
                ops += 1
        conn.close(f)
    os.write(wfd, b"%d\n" % ops)

start = time.monotonic()
r, w = os.pipe()
pids = []
for i in range(workers):
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            worker(i, w)
        except BaseException:
            import traceback
            traceback.print_exc()
        os._exit(0)
    pids.append(pid)
os.close(w)
for pid in pids:
    os.waitpid(pid, 0)
ops = sum(int(x) for x in os.fdopen(r).read().split())
print(json.dumps({"ops": ops, "duration_s": time.monotonic() - start}))
PYEOF
}

main() {
  local seconds=5 workers=8 clients=4 opt port v2 cu su out pycode pyconf size
  while getopts c:d:hw: opt; do
    case $opt in
      c) clients=$OPTARG ;;
      d) seconds=$OPTARG ;;
      h) usage 0 ;;
      w) workers=$OPTARG ;;
      *) usage ;;
    esac
  done
  [[ $(id -u) -eq 0 ]] || die "needs root (smbd, cgroups, nft)"
  for opt in smbd pdbedit nft jq make; do
    command -v "$opt" >/dev/null || die "'$opt' is not installed"
  done
  # shellcheck source-path=SCRIPTDIR/.. source=tests/helpers/smbd-setup.bash
  source "$BENCH_ROOT/tests/helpers/smbd-setup.bash"
  make -s -C "$H" >&2
  v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
  [[ -n $v2 ]] || die "no cgroup2 mount"

  TMP=$(mktemp -d /tmp/helpers-bench.XXXXXX)
  trap bench_cleanup EXIT
  chmod 755 "$TMP"
  for ((port = 4470; port <= 4499; port++)); do
    ss -Hltn "sport = :$port" | grep -q . || break
  done
  ((port <= 4499)) || die "no free port in 4470-4499"
  HELPERS_SMBD_QUIET=1 helpers_smbd_start "$TMP/smbd" "$port" || die "smbd did not start"
  CGS=$v2/helpers-bench-smbd-$$
  CGC=$v2/helpers-bench-client-$$
  mkdir "$CGS" "$CGC"
  for opt in $(helpers_smbd_pid "$TMP/smbd") $(pgrep -P "$(helpers_smbd_pid "$TMP/smbd")"); do
    echo "$opt" >"$CGS/cgroup.procs"
  done
  nft -f - <<EOF
table ip $NFT_TABLE {
  chain out {
    type nat hook output priority -100; policy accept;
    ip daddr $ADDR tcp dport 445 redirect to :$port
  }
}
EOF
  head -c 64M /dev/urandom >"$SMBD_SHARE/data.0"
  chmod 644 "$SMBD_SHARE/data.0"
  size=$(stat -c %s "$SMBD_SHARE/data.0")
  mkdir -m 1777 "$SMBD_SHARE/files"
  "$H/smb-wait-login" -A "$SMBD_CREDS" -t 5 "//$ADDR/perf" >/dev/null || die "no login through $ADDR:445"

  pycode=$TMP/loop.py
  pyconf=$TMP/pyclient.conf
  bench_python >"$pycode"
  printf '[global]\n\tclient min protocol = SMB2_10\n\tclient max protocol = SMB3_11\n\tlog level = 0\n\tdisable netbios = yes\n\tname resolve order = host\n' >"$pyconf"
  local have_py=1
  "$PY" -c 'import samba.samba3.libsmb_samba_internal' 2>/dev/null || have_py=0

  echo "helpers-bench: $(nproc) CPUs, smbd $(smbd -V | cut -d' ' -f2), $seconds s per run," \
    "$workers workers (logins, files), $clients readers; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-28s %8s %10s %12s %12s %7s\n' "run" "ops" "ops/s" "client us/op" "smbd us/op" "ratio"

  out=$TMP/out.json
  read -r cu su < <(bench_measured "$out" "$H/smb-login-storm" -A "$SMBD_CREDS" -w "$workers" \
    -d "$seconds" "//$ADDR/perf")
  bench_row "smb-login-storm" "$(jq .ops "$out")" "$(jq .duration_s "$out")" "$cu" "$su"
  if ((have_py)); then
    read -r cu su < <(bench_measured "$out" "$PY" "$pycode" login "$workers" "$seconds" "$pyconf" \
      "$SMBD_CREDS" "$ADDR" perf - 0)
    bench_row "python3-samba login loop" "$(jq .ops "$out")" "$(jq .duration_s "$out")" "$cu" "$su"
  fi

  read -r cu su < <(bench_measured "$out" "$H/smb-files" -A "$SMBD_CREDS" -w "$workers" \
    -d "$seconds" -s 4 "//$ADDR/perf/files")
  bench_row "smb-files (create+delete)" "$(jq .create.ops "$out")" \
    "$(jq '.create.duration_s + .delete.duration_s' "$out")" "$cu" "$su"
  echo "  smb-files: create $(jq .create.rate_per_s "$out")/s, delete $(jq .delete.rate_per_s "$out")/s," \
    "left behind $(jq .left_behind "$out")"
  if ((have_py)); then
    read -r cu su < <(bench_measured "$out" "$PY" "$pycode" files "$workers" "$seconds" "$pyconf" \
      "$SMBD_CREDS" "$ADDR" perf 4 0)
    bench_row "python3-samba files loop" "$(jq .ops "$out")" "$(jq .duration_s "$out")" "$cu" "$su"
    echo "  (python: the rate is files per second of the whole create-then-delete run)"
  fi

  read -r cu su < <(bench_measured "$out" "$H/smb-readers" -A "$SMBD_CREDS" -c "$clients" \
    -d "$seconds" "//$ADDR/perf/data.0")
  bench_row "smb-readers (4 KiB)" "$(jq .ops "$out")" "$(jq '.ops / .rate_per_s' "$out")" "$cu" "$su"
  if ((have_py)); then
    read -r cu su < <(bench_measured "$out" "$PY" "$pycode" read "$clients" "$seconds" "$pyconf" \
      "$SMBD_CREDS" "$ADDR" perf data.0 "$size")
    bench_row "python3-samba read loop" "$(jq .ops "$out")" "$seconds" "$cu" "$su"
  else
    echo "(python3-samba is not installed: no comparison)"
  fi
  echo "ratio = client CPU / smbd CPU for the same ops; goals: <= 0.25 logins and files, <= 0.8 reads"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
