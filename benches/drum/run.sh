#!/usr/bin/env bash
# Rotating drum with lifters (an STL mesh): granula and LIGGGHTS, interleaved, on 1 and 2
# cores, both started from one state of the turning drum (see README.md, "Timing").
#
#   benches/drum/run.sh [ROUNDS] [TIMED_STEPS]
#
# First, once and untimed: LIGGGHTS runs WARM steps from make_drum.py's lattice (the beads
# fall, the drum turns and its lifters start to shed beads over the bed) and dumps its
# state; with CHECK=1 granula runs the same WARM steps from the same lattice, and both
# states are compared. make_drum.py --from-dump turns LIGGGHTS' state into a granula scene
# and a LIGGGHTS input. Then ROUNDS (default 3) rounds of four runs each: granula 1 thread,
# LIGGGHTS 1 rank, granula 2 threads, LIGGGHTS 2 ranks. Both codes go SHORT + TIMED_STEPS
# steps from that state, SHORT = TIMED_STEPS / 10 (at least 1), and time the last
# TIMED_STEPS (default 2000):
#
#   granula:  wall time of a run of SHORT + TIMED_STEPS steps minus that of a run of SHORT
#             steps from the same scene (start-up, reading the scene and writing the
#             outputs cancel);
#   LIGGGHTS: the "Loop time" of `run TIMED_STEPS` after `run SHORT`.
#
# Prints one line per run: ns per particle-step of the timed steps, the contacts at the
# end (granula: all contacts, drum included, and the force-carrying contacts per bead;
# LIGGGHTS: overlapping bead pairs) and the load average when the run started; then the
# medians [min-max], the ratios granula / LIGGGHTS, the speed-ups from 1 to 2 cores, the
# state both codes reached in the last 1-core runs (check_state.py), the CPU and the date.
#
# Environment:
#   N         beads (default 10000; the drum's length grows with N, 90 mm per 10^4 beads)
#   WARM      steps of the untimed warm-up from the lattice (default 25000: 0.5 s, a
#             quarter turn)
#   CHECK     1 (default): granula also runs the warm-up from the lattice, and the two
#             states are compared; 0: LIGGGHTS' warm-up only
#   PERF      1: after the rounds, granula on 1 thread once more under `perf record`, and
#             the share of its time by part of the step (needs perf; default 0)
#   GRANULA   granula binary (default: target/release/granula of this repository)
#   LIGGGHTS  LIGGGHTS binary (default: liggghts)
#   WORK      folder for scenes, data and outputs (default: a temporary folder, removed at
#             the end)
#   SCENE_ARGS extra options of make_drum.py, e.g. "--skin 5e-4"
set -u

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=../common.sh
. "$here/../common.sh"
own_session "${BASH_SOURCE[0]}" "$@"

rounds=${1:-3}
timed=${2:-2000}
n=${N:-10000}
warm=${WARM:-25000}
check=${CHECK:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$rounds'"
[[ $timed =~ ^[1-9][0-9]*$ ]] || die "TIMED_STEPS must be a positive integer, got '$timed'"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$n'"
[[ $warm =~ ^[1-9][0-9]*$ ]] || die "WARM must be a positive integer, got '$warm'"
short=$((timed / 10))
[ "$short" -ge 1 ] || short=1
total=$((short + timed))
dt=2e-5   # make_drum.py's time step, for the drum's angle after the warm-up

granula=$(find_granula) || exit 2
liggghts=${LIGGGHTS:-liggghts}
command -v "$liggghts" > /dev/null || die "LIGGGHTS not found ('$liggghts'): install it (Debian 12: apt-get install liggghts openmpi-bin) or point LIGGGHTS at its binary"
command -v mpirun > /dev/null || die "mpirun not found: LIGGGHTS on 2 ranks needs it (Debian, Ubuntu: apt-get install openmpi-bin)"
command -v python3 > /dev/null || die "python3 not found: make_drum.py needs it"
if [ "${PERF:-0}" = 1 ]; then
  command -v perf > /dev/null || die "PERF=1 needs perf (Debian: apt-get install linux-perf)"
fi

enter_work

load() { cut -d' ' -f1 /proc/loadavg; }

# Runs LIGGGHTS on $1 rank(s) (that many slabs along the axis), screen output to $2, the
# other arguments for liggghts.
run_liggghts() {
  local ranks=$1 screen=$2 launcher=()
  shift 2
  [ "$ranks" -gt 1 ] && launcher=(mpirun -np "$ranks")
  ${launcher[@]+"${launcher[@]}"} "$liggghts" -var py "$ranks" "$@" -log none -screen "$screen" > liggghts.log 2>&1 \
    || { tail -n 20 "$screen" liggghts.log >&2; die "LIGGGHTS failed on $ranks rank(s) (output above)"; }
}

# Wall time of one granula run in ns; stops the script with the log if the run fails.
granula_wall() {
  local scene=$1 out=$2 t0 t1
  t0=$(date +%s%N)
  "$granula" run "$scene" --out "$out" --overwrite --quiet > granula.log 2>&1 \
    || { tail -n 20 granula.log >&2; die "granula failed on $scene (log above)"; }
  t1=$(date +%s%N)
  echo $((t1 - t0))
}

echo "rotating drum with lifters, $n beads; $rounds rounds of $timed timed steps after $short untimed ones, from the state of a $warm-step warm-up"

# The lattice start: the drum, the beads, LIGGGHTS' data and input, granula's scene of the
# warm-up (2 threads, the beads written at its end).
# shellcheck disable=SC2086  # SCENE_ARGS is a list of options
python3 "$here/make_drum.py" "$warm" 2 --n "$n" --warm "$warm" ${SCENE_ARGS:-} > make_drum.log 2>&1 \
  || { cat make_drum.log >&2; die "make_drum.py failed"; }
sed -n 's/^make_drum.py: /start: /p' make_drum.log

# The warm-up, untimed: LIGGGHTS on 2 ranks (1 on a one-core machine).
warm_ranks=1
[ "$(env -u OMP_NUM_THREADS nproc)" -ge 2 ] && warm_ranks=2
l0=$(load)
t0=$(date +%s%N)
run_liggghts "$warm_ranks" warm_liggghts.out -in in.drum -var timed 0
t1=$(date +%s%N)
[ -s warm.dump ] || die "the warm-up wrote no warm.dump (see $work/warm_liggghts.out)"
mv warm.dump state.dump   # the timed LIGGGHTS runs write warm.dump and end.dump of their own
echo "warm-up: LIGGGHTS, $warm steps on $warm_ranks rank(s), $(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t / 1e9 }') s (not timed; load $l0)"
if [ "$check" = 1 ]; then
  l0=$(load)
  g=$(granula_wall drum.toml out_warm) || exit 2
  echo "warm-up: granula, $warm steps on 2 threads, $(awk -v t="$g" 'BEGIN { printf "%.1f", t / 1e9 }') s (not timed; load $l0)"
  echo "the two warm-ups, from the same lattice (check_state.py):"
  python3 "$here/check_state.py" "granula_warm=out_warm/trajectories.csv" "LIGGGHTS_warm=state.dump" | sed 's/^/  /'
fi

# The state for both codes: granula scenes of SHORT and SHORT + TIMED_STEPS steps on 1 and
# 2 threads; in.flow (the steps given on the command line).
state_time=$(awk -v w="$warm" -v dt="$dt" 'BEGIN { printf "%.10g", w * dt }')
for t in 1 2; do
  for s in "$short" "$total"; do
    # shellcheck disable=SC2086
    python3 "$here/make_drum.py" "$s" "$t" --from-dump state.dump --time "$state_time" --warm "$short" ${SCENE_ARGS:-} > convert.log 2>&1 \
      || { cat convert.log >&2; die "make_drum.py --from-dump failed"; }
    mv flow.toml "flow_t${t}_${s}.toml"
  done
done
sed -n 's/^make_drum.py: /state: /p' convert.log
echo "granula: $granula${SCENE_ARGS:+ (make_drum.py ... $SCENE_ARGS)}"
echo "LIGGGHTS: $(command -v "$liggghts")"
[ -r "/proc/$$/autogroup" ] && echo "autogroup: $(cat "/proc/$$/autogroup")"

# ns per particle-step from a time in ns (integer) or s (decimal) over the timed steps.
per_particle_step() { awk -v t="$1" -v scale="$2" -v n="$n" -v m="$timed" 'BEGIN { printf "%.1f", t * scale / (n * m) }'; }

# One line per run: code, width, ns per particle-step, contacts at the end, load.
granula_run() {
  local threads=$1 round=$2 l long brief ns contacts width
  l=$(load)
  long=$(granula_wall "flow_t${threads}_${total}.toml" "out_g${threads}") || exit 2
  brief=$(granula_wall "flow_t${threads}_${short}.toml" "out_g${threads}_short") || exit 2
  echo "$brief" > "brief_t${threads}.ns"
  ns=$(per_particle_step $((long - brief)) 1)
  contacts=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "contacts") c = i; if ($i == "coordination") z = i } next }
    { a = $c; b = $z } END { printf "%d contacts (drum included), %.3f force-carrying per bead", a, b }' "out_g${threads}/series.csv")
  [ "$threads" = 1 ] && width="1 thread" || width="$threads threads"
  printf '%-5s %-8s %-9s %8s ns  %-56s load %s\n' "$round" granula "$width" "$ns" "$contacts" "$l"
  echo "granula $threads $ns" >> rounds.txt
}

liggghts_run() {
  local ranks=$1 round=$2 l loop ns pairs width
  l=$(load)
  run_liggghts "$ranks" "liggghts_${ranks}.out" -in in.flow -var warm "$short" -var timed "$timed"
  # "Loop time of T on P procs for M steps with A atoms": the last one is the timed run.
  loop=$(awk -v m="$timed" '/^Loop time of/ && $9 == m { t = $4 } END { print t }' "liggghts_${ranks}.out")
  [ -n "$loop" ] || die "no 'Loop time' for $timed steps in liggghts_${ranks}.out"
  ns=$(per_particle_step "$loop" 1e9)
  mv end.dump "end_${ranks}.dump"
  pairs=$(awk -v s="$total" '$1 == s && NF == 5 { p = $5 } END { printf "%d bead pairs", p }' "liggghts_${ranks}.out")
  [ "$ranks" = 1 ] && width="1 rank" || width="$ranks ranks"
  printf '%-5s %-8s %-9s %8s ns  %-56s load %s\n' "$round" LIGGGHTS "$width" "$ns" "$pairs" "$l"
  echo "liggghts $ranks $ns" >> rounds.txt
}

echo "ns per particle-step of the timed steps; contacts at the end of the run; load average at its start:"
printf '%-5s %-8s %-9s %11s  %-56s %s\n' round code width "" "contacts" "load"
: > rounds.txt
for r in $(seq 1 "$rounds"); do
  granula_run 1 "$r"
  liggghts_run 1 "$r"
  granula_run 2 "$r"
  liggghts_run 2 "$r"
done

python3 - rounds.txt <<'PY'
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    code, width, ns = line.split()
    runs.setdefault((code, int(width)), []).append(float(ns))
names = {("granula", 1): "granula 1 thread", ("liggghts", 1): "LIGGGHTS 1 rank",
         ("granula", 2): "granula 2 threads", ("liggghts", 2): "LIGGGHTS 2 ranks"}
med = {}
print("median [min-max] ns per particle-step:")
for key in [("granula", 1), ("liggghts", 1), ("granula", 2), ("liggghts", 2)]:
    v = runs[key]
    med[key] = statistics.median(v)
    print(f"  {names[key]:18s} {med[key]:7.1f} [{min(v):.1f}-{max(v):.1f}]")
print(f"granula / LIGGGHTS: {med['granula', 1] / med['liggghts', 1]:.2f} on 1 core, "
      f"{med['granula', 2] / med['liggghts', 2]:.2f} on 2 cores")
print(f"speed-up 1 -> 2 cores: granula {med['granula', 1] / med['granula', 2]:.2f}, "
      f"LIGGGHTS {med['liggghts', 1] / med['liggghts', 2]:.2f}")
PY

# LIGGGHTS' own split of its timed run (1 rank): its mesh contacts are in "Other" (fixes).
echo "LIGGGHTS' split of its last timed run on 1 rank: $(awk -v m="$timed" '/^Loop time of/ { on = ($9 == m) } on && / time \(%\) = / { printf "%s %s %%, ", $1, $6 }' liggghts_1.out | sed 's/(//g; s/)//g; s/, $//')"

# A check that both codes ran the same drum, from the last 1-core runs: the state both
# started from (LIGGGHTS' dump) and the states both reached after SHORT + TIMED_STEPS
# steps, every figure computed the same way from the positions and velocities.
echo "the state read and the last 1-core runs' ends, after $total steps (check_state.py):"
python3 "$here/check_state.py" "start=state.dump" "granula_end=out_g1/trajectories.csv" "LIGGGHTS_end=end_1.dump" | sed 's/^/  /'

if [ "${PERF:-0}" = 1 ]; then
  # granula on 1 thread under perf: the share of its samples by part of the step. The
  # recording starts after as long as the SHORT-step run took in the last round (start-up
  # and the untimed steps), so that it covers about the timed steps and the end.
  delay=$(awk '{ printf "%d", $1 / 1e6 }' brief_t1.ns)
  perf record -F 499 -D "$delay" -o perf.data "$granula" run "flow_t1_${total}.toml" --out out_perf --overwrite --quiet > perf.log 2>&1 \
    || { tail -n 5 perf.log >&2; die "perf record failed"; }
  perf report -i perf.data --no-children --sort symbol --stdio 2> /dev/null > perf.txt
  echo "granula on 1 thread under perf, $total steps from the state, recorded from $delay ms on (share of the samples):"
  python3 "$here/perf_split.py" perf.txt | sed 's/^/  /'
fi

echo "LIGGGHTS version: $(sed -n 's/^LIGGGHTS (Version \([^,]*\),.*/\1/p' liggghts_1.out | head -n 1)"
cpu_line
echo "date: $(date '+%Y-%m-%d %H:%M %Z')"
