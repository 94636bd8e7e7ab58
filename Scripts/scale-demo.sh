#!/usr/bin/env bash
# `make scale-demo`: a sharded run under a real batch engine, checked against a single process.
#
#   1. starts a one-node Slurm cluster (munged, slurmctld, slurmd from Debian's slurm-wlm and munge)
#      in a scratch folder, on free ports, with its own munge key and socket: nothing in /etc is used;
#   2. serves a 2,000-URL list on loopback (Scripts/memcheck/server.py: small JPEGs at distinct URLs,
#      the TestImages files (PNG, WebP to transcode, GIF), a few duplicates and 404s);
#   3. prepares the list once in one process (`--stable-names`): the reference;
#   4. submits `sbatch --array=0-3` of `prepare --shard auto --stable-names` into one shared container,
#      waits for the array, then runs `pushattach merge` on the container;
#   5. checks that both containers hold the same files (names and bytes) and the same manifest entries
#      (every field but timings and dates), in the same order;
#   6. shuts the cluster and the server down, whatever happened.
#
# Needs root: slurmd starts each job as its owner and munged must own its key. Without root (or
# without the daemons) it prints why and exits 0 ("skipped"); SCALE_DEMO_REQUIRED=1 makes that exit 1.
# Not part of `make test`. Usage: Scripts/scale-demo.sh [SHARDS] [URLS]   (default 4 and 2000)
#   PUSHATTACH=path   the binary to run (default .build/release/pushattach, which make scale-demo builds)
#   SCALE_DEMO_OUT    where the two containers are kept (default .build/scale-demo)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PUSHATTACH:-$root/.build/release/pushattach}"
shards="${1:-4}"
count="${2:-2000}"
out="${SCALE_DEMO_OUT:-$root/.build/scale-demo}"

skip() {
    echo "scale-demo: SKIPPED: $*"
    [ "${SCALE_DEMO_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}
[ "$(id -u)" = 0 ] || skip "the Slurm daemons need root here (slurmd starts each job as its owner). Run it as root: sudo make scale-demo"
for tool in munged munge slurmctld slurmd sbatch sinfo scontrol squeue; do
    command -v "$tool" >/dev/null 2>&1 || skip "no '$tool' on PATH: install Debian's slurm-wlm and munge (make scale-demo does, as root)"
done
[ -x "$bin" ] || { echo "scale-demo: no pushattach at $bin (make scale-demo builds it; or set PUSHATTACH)" >&2; exit 64; }

# Sockets have a 108-byte path limit: the cluster lives in a short scratch folder under /tmp.
scratch="$(mktemp -d /tmp/pushattach-scale.XXXXXX)"
chmod 755 "$scratch"
server_pid=""
export SLURM_CONF="$scratch/slurm/slurm.conf"
cleanup() {
    set +e
    if [ -f "$scratch/slurm/slurmctld.pid" ]; then
        scancel --quiet --user root >/dev/null 2>&1
        scontrol shutdown >/dev/null 2>&1
        for _ in $(seq 50); do
            [ -e "$scratch/slurm/slurmctld.pid" ] && kill -0 "$(cat "$scratch/slurm/slurmctld.pid" 2>/dev/null)" 2>/dev/null || break
            sleep 0.1
        done
    fi
    for pidfile in "$scratch/slurm/slurmd.pid" "$scratch/slurm/slurmctld.pid"; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    done
    [ -S "$scratch/munge/munge.socket" ] && munged --stop --socket="$scratch/munge/munge.socket" >/dev/null 2>&1
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    if [ "${status:-1}" = 0 ]; then rm -rf "$scratch"; else echo "scale-demo: daemon logs kept in $scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
python="$(python3 -c 'import sys; print(sys.executable)')"
free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# --- 1. the cluster -------------------------------------------------------------------------------
mkdir -p "$scratch/munge" "$scratch/slurm/state" "$scratch/slurm/spool" "$scratch/slurm/log"
chmod 755 "$scratch/munge"
head -c 1024 /dev/urandom >"$scratch/munge/munge.key"
chmod 400 "$scratch/munge/munge.key"
munged --force --socket="$scratch/munge/munge.socket" --key-file="$scratch/munge/munge.key" \
    --log-file="$scratch/munge/munged.log" --pid-file="$scratch/munge/munged.pid" --seed-file="$scratch/munge/munged.seed"
host="$(hostname -s)"
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for the scale demo: written by Scripts/scale-demo.sh, removed with it.
ClusterName=pushattach-demo
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$scratch/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$scratch/slurm/state
SlurmdSpoolDir=$scratch/slurm/spool
SlurmctldPidFile=$scratch/slurm/slurmctld.pid
SlurmdPidFile=$scratch/slurm/slurmd.pid
SlurmctldLogFile=$scratch/slurm/log/slurmctld.log
SlurmdLogFile=$scratch/slurm/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SwitchType=switch/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=demo Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
ready=""
for _ in $(seq 100); do
    if sinfo --noheader --format=%t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then ready=1; break; fi
    sleep 0.2
done
[ -n "$ready" ] || { echo "scale-demo: the Slurm node did not come up; logs in $scratch/slurm/log" >&2; exit 1; }
echo "scale-demo: Slurm $(sinfo --version | awk '{print $2}') up: one node ($host, $(nproc) CPUs), config $SLURM_CONF"

# --- 2. the list and its server -------------------------------------------------------------------
files="$scratch/files"
mkdir -p "$files"
cp "$root/TestImages/opaque-300x200.png" "$root/TestImages/lossy-320x240.webp" "$root/TestImages/alpha-256x256.png" \
    "$root/TestImages/animated-120x90.gif" "$root/TestImages/progressive-640x480.jpg" "$files/"
"$python" "$root/Scripts/memcheck/server.py" --small "$root/TestImages/small-320x240.jpg" --files "$files" \
    >"$scratch/server.addr" 2>"$scratch/server.log" &
server_pid=$!
for _ in $(seq 100); do [ -s "$scratch/server.addr" ] && break; sleep 0.1; done
base="http://$(cut -d' ' -f1 "$scratch/server.addr")"
list="$scratch/urls.txt"
"$python" - "$base" "$count" >"$list" <<'EOF'
import sys
base, count = sys.argv[1], int(sys.argv[2])
names = ["opaque-300x200.png", "lossy-320x240.webp", "alpha-256x256.png", "animated-120x90.gif", "progressive-640x480.jpg"]
for i in range(count):
    if i % 100 == 7:
        print(f"{base}/missing/{i}.jpg")                        # 404: a failed item in every shard
    elif i % 100 == 42:
        print(f"{base}/img/{i - 1}.jpg?v=1")                     # a second spelling of an earlier URL
    elif i % 10 == 3:
        print(f"{base}/files/{names[i // 10 % len(names)]}?n={i}", "image")
    else:
        print(f"{base}/img/{i}.jpg?v=1")
EOF
echo "scale-demo: $count URLs served at $base ($(grep -c /missing/ "$list") of them 404)"

# prepare exits 1 when some items fail (the 404s): that is the expected outcome here.
run_ok() { local rc=0; "$@" || rc=$?; [ "$rc" -le 1 ] || { echo "scale-demo: '$*' exited $rc" >&2; return 1; }; }
common=(--stable-names --allow-private-networks --quiet --concurrency 8 --per-host 8)

# --- 3. the reference: one process ----------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s.%N)
run_ok "$bin" prepare "$list" --container "$out/single" "${common[@]}"
echo "scale-demo: single process: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s"

# --- 4. the array job -----------------------------------------------------------------------------
last=$((shards - 1))
start=$(date +%s.%N)
sbatch --parsable --wait --array="0-$last" --job-name=pushattach --chdir="$out" --output="$out/slurm-%A_%a.out" \
    --wrap "rc=0; '$bin' prepare '$list' --container '$out/sharded' --shard auto ${common[*]} || rc=\$?; [ \$rc -le 1 ]" \
    >"$scratch/job.id" || { echo "scale-demo: the array job failed; its output:" >&2; cat "$out"/slurm-*.out >&2; exit 1; }
echo "scale-demo: sbatch --array=0-$last (job $(cat "$scratch/job.id")): $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s"
for f in "$out"/slurm-*.out; do [ -s "$f" ] && sed "s|^|  $(basename "$f" .out): |" "$f"; done
"$bin" merge "$out/sharded"

# --- 5. compare -----------------------------------------------------------------------------------
"$python" - "$out/single" "$out/sharded" "$shards" <<'EOF'
import hashlib, json, os, sys
single, sharded, shards = sys.argv[1], sys.argv[2], int(sys.argv[3])

def files(root):
    found = {}
    for folder in ("Images", "Audio", "Video", "Thumbnails"):
        base = os.path.join(root, folder)
        for dirpath, _, names in os.walk(base):
            for name in names:
                path = os.path.join(dirpath, name)
                found[os.path.relpath(path, root)] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    return found

# Fields that differ between any two runs (clock readings), and the shard bookkeeping.
VOLATILE = {"timings", "started_at", "finished_at", "created_at", "generated_at", "duration_ms", "elapsed_ms", "shard"}
def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value

a, b = files(single), files(sharded)
problems = []
if a != b:
    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    differ = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    problems.append(f"files differ: {len(only_a)} only in single, {len(only_b)} only in sharded, {len(differ)} with other bytes "
                    f"(first: {(only_a + only_b + differ)[:3]})")
ma = json.load(open(os.path.join(single, "manifest.json")))
mb = json.load(open(os.path.join(sharded, "manifest.json")))
ea, eb = [strip(e) for e in ma["entries"]], [strip(e) for e in mb["entries"]]
if len(ea) != len(eb):
    problems.append(f"manifest entries: {len(ea)} in single, {len(eb)} in sharded")
else:
    bad = [i for i, (x, y) in enumerate(zip(ea, eb)) if x != y]
    if bad:
        i = bad[0]
        problems.append(f"{len(bad)} manifest entries differ; first at position {i}:\n  single:  {json.dumps(ea[i])}\n  sharded: {json.dumps(eb[i])}")
statuses = {}
for e in ma["entries"]:
    statuses[e["status"]] = statuses.get(e["status"], 0) + 1
if problems:
    print("scale-demo: FAILED"); [print("  " + p) for p in problems]; sys.exit(1)
print(f"scale-demo: OK: {shards} shards merged == one process: {len(a)} files (same names, same bytes), "
      f"{len(ea)} manifest entries in input order ({', '.join(f'{v} {k}' for k, v in sorted(statuses.items()))})")
EOF
status=0
echo "scale-demo: containers kept in $out/single and $out/sharded"
