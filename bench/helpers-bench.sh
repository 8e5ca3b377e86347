#!/usr/bin/env bash
# Usage: sudo bench/helpers-bench.sh [-c clients] [-d seconds] [-r rounds] [-w workers]
# Summary: how light the helpers are: client CPU per op, smbd CPU per op and their ratio for
#          smb-login-storm, smb-files and smb-readers, next to the same work done by a
#          python3-samba loop. Not a test: it prints numbers (goals: ratio <= 0.25 for logins
#          and files, <= 0.8 for reads; each helper at least as fast as the python loop).
#
# Each run is done -r times (2), helper and python in turn; the table shows each one's fastest
# round, since other load on the machine only ever slows a run down.
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
  sed -n 's/^# \{0,1\}//; 2,6p' "${BASH_SOURCE[0]}"
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

# bench_row "NAME|OPS|DURATION|CLIENT_US|SMBD_US|NOTE": one line of the table
bench_row() {
  awk -F'|' '{
    if ($2 <= 0) { printf "%-28s %8s\n", $1, "no ops"; exit }
    printf "%-28s %8d %10.1f %12.1f %12.1f %7.3f  %s\n", $1, $2, $2 / $3, $4 / $2, $5 / $2,
      $4 / $5, $6 }' <<<"$1"
}

# bench_case CASE WHO: one measured run of CASE (login, files, read) by WHO (helper, python);
# prints "RATE NAME|OPS|DURATION|CLIENT_US|SMBD_US|NOTE"
bench_case() {
  local out=$TMP/out.json cu su ops dur name note=''
  case $1.$2 in
    login.helper)
      read -r cu su < <(bench_measured "$out" "$H/smb-login-storm" -A "$SMBD_CREDS" -w "$workers" \
        -d "$seconds" "//$ADDR/perf")
      name=smb-login-storm ops=$(jq .ops "$out") dur=$(jq .window_s "$out")
      ;;
    login.python)
      read -r cu su < <(bench_measured "$out" "$PY" "$pycode" login "$workers" "$seconds" "$pyconf" \
        "$SMBD_CREDS" "$ADDR" perf - 0)
      name="python3-samba login loop" ops=$(jq .ops "$out") dur=$(jq .duration_s "$out")
      ;;
    files.helper)
      read -r cu su < <(bench_measured "$out" "$H/smb-files" -A "$SMBD_CREDS" -w "$workers" \
        -d "$seconds" -s 4 "//$ADDR/perf/files")
      name="smb-files (create+delete)" ops=$(jq .create.ops "$out")
      dur=$(jq '.create.duration_s + .delete.duration_s' "$out")
      note="create $(jq '.create.rate_per_s | floor' "$out")/s, delete $(jq '.delete.rate_per_s | floor' "$out")/s, left $(jq .left_behind "$out")"
      ;;
    files.python)
      read -r cu su < <(bench_measured "$out" "$PY" "$pycode" files "$workers" "$seconds" "$pyconf" \
        "$SMBD_CREDS" "$ADDR" perf 4 0)
      name="python3-samba files loop" ops=$(jq .ops "$out") dur=$(jq '.create_s + .delete_s' "$out")
      note="create $(jq '.ops / .create_s | floor' "$out")/s, delete $(jq '.ops / .delete_s | floor' "$out")/s"
      ;;
    read.helper)
      read -r cu su < <(bench_measured "$out" "$H/smb-readers" -A "$SMBD_CREDS" -c "$clients" \
        -d "$seconds" "//$ADDR/perf/data.0")
      name="smb-readers (4 KiB)" ops=$(jq .ops "$out") dur=$(jq .window_s "$out")
      ;;
    read.python)
      read -r cu su < <(bench_measured "$out" "$PY" "$pycode" read "$clients" "$seconds" "$pyconf" \
        "$SMBD_CREDS" "$ADDR" perf data.0 "$size")
      name="python3-samba read loop" ops=$(jq .ops "$out") dur=$seconds
      ;;
  esac
  [[ -n $ops && $ops != null && -n $cu && -n $su ]] || return 1
  printf '%s %s|%s|%s|%s|%s|%s\n' "$(awk -v o="$ops" -v d="$dur" 'BEGIN { print (d > 0 ? o / d : 0) }')" \
    "$name" "$ops" "$dur" "$cu" "$su" "$note"
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
    times = []
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
        t0 = time.monotonic()
        end = t0 + seconds
        while time.monotonic() < end:
            conn.savefile("%s\\f%07d" % (d, ops), data)
            ops += 1
        t1 = time.monotonic()
        for n in range(ops):
            conn.unlink("%s\\f%07d" % (d, n))
        conn.rmdir(d)
        times.append((t0, t1, time.monotonic()))
    elif mode == "read":
        conn = libsmb.Conn(host, share, lp, c)
        f = conn.create(arg, DesiredAccess=0x120089, ShareAccess=7, CreateDisposition=1)
        blocks = int(sys.argv[9]) // 4096
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if len(conn.read(f, random.randrange(blocks) * 4096, 4096)) == 4096:
                ops += 1
        conn.close(f)
    os.write(wfd, json.dumps({"ops": ops, "times": times}).encode() + b"\n")

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
res = [json.loads(x) for x in os.fdopen(r).read().split("\n") if x]
out = {"ops": sum(x["ops"] for x in res), "duration_s": time.monotonic() - start}
t = [x["times"][0] for x in res if x["times"]]
if t:  # files: the create phase from the first start to the last end, the delete phase likewise
    out["create_s"] = max(x[1] for x in t) - min(x[0] for x in t)
    out["delete_s"] = max(x[2] for x in t) - min(x[1] for x in t)
print(json.dumps(out))
PYEOF
}

main() {
  local seconds=5 workers=8 clients=4 rounds=2 opt port v2 pycode pyconf size
  while getopts c:d:hr:w: opt; do
    case $opt in
      c) clients=$OPTARG ;;
      d) seconds=$OPTARG ;;
      h) usage 0 ;;
      r) rounds=$OPTARG ;;
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
  printf '%-28s %8s %10s %12s %12s %7s\n' "run (best of $rounds)" "ops" "ops/s" "client us/op" \
    "smbd us/op" "ratio"

  local case who r line rate
  local -A best
  for case in login files read; do
    best=()
    for ((r = 1; r <= rounds; r++)); do
      for who in helper python; do
        [[ $who == python ]] && ((!have_py)) && continue
        line=$(bench_case "$case" "$who") || continue
        rate=${line%% *}
        if [[ -z ${best[$who]:-} ]] ||
          awk -v a="$rate" -v b="${best[$who]%% *}" 'BEGIN { exit !(a > b) }'; then
          best[$who]=$line
        fi
      done
    done
    for who in helper python; do
      [[ -n ${best[$who]:-} ]] && bench_row "${best[$who]#* }"
    done
  done
  ((have_py)) || echo "(python3-samba is not installed: no comparison)"
  echo "ratio = client CPU / smbd CPU for the same ops; goals: <= 0.25 logins and files, <= 0.8 reads"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
