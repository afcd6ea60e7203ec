#!/usr/bin/env bash
# Chute-flow benchmark: granula and LAMMPS, interleaved, on 1 and 2 cores, both started
# from one flowing state (see README.md, "Timing").
#
#   benches/chute/run.sh [ROUNDS] [TIMED_STEPS]
#
# First, once and untimed: LAMMPS runs WARM steps from make_chute.py's lattice (the
# lattice falls onto the base and starts to flow) and writes its state with write_data;
# make_chute.py --from-data turns that state into a granula scene and a LAMMPS input.
# Then ROUNDS (default 3) rounds of four runs each: granula 1 thread, LAMMPS 1 rank,
# granula 2 threads, LAMMPS 2 ranks. Both codes go SHORT + TIMED_STEPS steps from the
# flowing state, SHORT = TIMED_STEPS / 10 (at least 1), and time the last TIMED_STEPS
# (default 5000):
#
#   granula: wall time of a run of SHORT + TIMED_STEPS steps minus that of a run of SHORT
#            steps from the same scene (start-up, reading the scene and writing the
#            output cancel);
#   LAMMPS:  the "Loop time" of `run TIMED_STEPS` after `run SHORT`.
#
# Prints ns per particle-step of the timed steps for every run, counting the N flowing
# spheres only (not the frozen base), then the medians [min-max], the ratios
# granula / LAMMPS, the speed-ups from 1 to 2 cores, the kinetic energies of both codes at
# the start and the end of the last 1-core runs, the contacts per flowing sphere, the CPU
# and the date.
#
# Environment:
#   N           flowing spheres (default 32000)
#   WARM        LAMMPS' warm-up steps before the flowing state is written (default 30000)
#   GRANULA     granula binary (default: target/release/granula of this repository)
#   LMP         LAMMPS binary (default: lmp)
#   WORK        folder for scenes, data and outputs (default: a temporary folder, removed
#               at the end)
#   SCENE_ARGS  extra options of make_chute.py --from-data, e.g. "--reorder 0"
set -u

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=../common.sh
. "$here/../common.sh"
own_session "${BASH_SOURCE[0]}" "$@"

rounds=${1:-3}
timed=${2:-5000}
n=${N:-32000}
warm=${WARM:-30000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$rounds'"
[[ $timed =~ ^[1-9][0-9]*$ ]] || die "TIMED_STEPS must be a positive integer, got '$timed'"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$n'"
[[ $warm =~ ^[0-9]+$ ]] || die "WARM must be a non-negative integer, got '$warm'"
short=$((timed / 10))
[ "$short" -ge 1 ] || short=1
total=$((short + timed))

granula=$(find_granula) || exit 2
lmp=${LMP:-lmp}
command -v "$lmp" > /dev/null || die "LAMMPS not found ('$lmp'): install it (Debian, Ubuntu: apt-get install lammps openmpi-bin) or point LMP at its binary"
command -v mpirun > /dev/null || die "mpirun not found: LAMMPS on 2 ranks needs it (Debian, Ubuntu: apt-get install openmpi-bin)"
command -v python3 > /dev/null || die "python3 not found: make_chute.py needs it"

enter_work

# Runs LAMMPS on $1 rank(s), screen output to $2, the other arguments for lmp.
lammps() {
  local ranks=$1 screen=$2 launcher=()
  shift 2
  [ "$ranks" -gt 1 ] && launcher=(mpirun -np "$ranks")
  ${launcher[@]+"${launcher[@]}"} "$lmp" -var px "$ranks" "$@" -log none -screen "$screen" > lammps.log 2>&1 \
    || { tail -n 20 "$screen" lammps.log >&2; die "LAMMPS failed on $ranks rank(s) (output above)"; }
}

echo "chute flow, $n flowing spheres; $rounds rounds of $timed timed steps after $short untimed ones, from the state of a $warm-step LAMMPS warm-up"

# The warm-up, untimed: on 2 ranks where there are 2 cores.
warm_ranks=1
[ "$(env -u OMP_NUM_THREADS nproc)" -ge 2 ] && warm_ranks=2
python3 "$here/make_chute.py" 1 1 --n "$n" --write-data flow.lmp > make_chute.log 2>&1 \
  || { cat make_chute.log >&2; die "make_chute.py failed"; }
t0=$(date +%s%N)
lammps "$warm_ranks" warm.out -in in.chute -var warm "$warm" -var timed 0
t1=$(date +%s%N)
[ -s flow.lmp ] || die "the warm-up wrote no flow.lmp (see $work/warm.out)"
echo "warm-up: LAMMPS, $warm steps on $warm_ranks rank(s), $(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t / 1e9 }') s (not timed)"

# The flowing state for both codes: granula scenes of SHORT and SHORT + TIMED_STEPS steps
# on 1 and 2 threads; in.flow (the same for every run, the steps given on the command line).
# An energy line every SHORT steps in both codes, so that both report the start of the
# timed steps and, when SHORT divides TIMED_STEPS, the end.
for t in 1 2; do
  for s in "$short" "$total"; do
    # shellcheck disable=SC2086  # SCENE_ARGS is a list of options
    python3 "$here/make_chute.py" "$s" "$t" --from-data flow.lmp --every "$short" ${SCENE_ARGS:-} > convert.log 2>&1 \
      || { cat convert.log >&2; die "make_chute.py --from-data failed"; }
    mv flow.toml "flow_t${t}_${s}.toml"
  done
done
echo "flowing state: $(sed -n '2p' convert.log)"
echo "granula: $granula${SCENE_ARGS:+ (make_chute.py --from-data ... $SCENE_ARGS)}"
echo "LAMMPS: $(command -v "$lmp")"
[ -r "/proc/$$/autogroup" ] && echo "autogroup: $(cat "/proc/$$/autogroup")"

# ns per flowing-particle step from a time in ns (integer) or s (decimal) over the timed steps.
per_particle_step() { awk -v t="$1" -v scale="$2" -v n="$n" -v m="$timed" 'BEGIN { printf "%.1f", t * scale / (n * m) }'; }

# Wall time of one granula run in ns; stops the script with the log if the run fails.
granula_wall() {
  local scene=$1 out=$2 t0 t1
  t0=$(date +%s%N)
  "$granula" run "$scene" --out "$out" --overwrite --quiet > granula.log 2>&1 \
    || { tail -n 20 granula.log >&2; die "granula failed on $scene (log above)"; }
  t1=$(date +%s%N)
  echo $((t1 - t0))
}

granula_ns() {
  local threads=$1 long brief
  long=$(granula_wall "flow_t${threads}_${total}.toml" "out_g${threads}") || exit 2
  brief=$(granula_wall "flow_t${threads}_${short}.toml" "out_g${threads}_short") || exit 2
  per_particle_step $((long - brief)) 1
}

lammps_ns() {
  local ranks=$1 loop
  lammps "$ranks" "lammps_${ranks}.out" -in in.flow -var data flow.lmp -var warm "$short" -var timed "$timed"
  # "Loop time of T on P procs for M steps with A atoms": the last one is the timed run.
  loop=$(awk -v m="$timed" '/^Loop time of/ && $9 == m { t = $4 } END { print t }' "lammps_${ranks}.out")
  [ -n "$loop" ] || die "no 'Loop time' for $timed steps in lammps_${ranks}.out"
  per_particle_step "$loop" 1e9
}

echo "ns per particle-step of the timed steps ($n flowing spheres; the frozen base not counted):"
# shellcheck source=../interleaved.sh
. "$here/../interleaved.sh"
interleaved_rounds "$rounds" || exit 2

# A check that both codes ran the same flow, from the last 1-core runs: the flowing spheres'
# kinetic energies at step 0 (the state read, equal up to rounding), at the start of the
# timed steps and at the last step both report (apart by then: the laws differ in details,
# see README.md), and the contacts there. granula: series.csv; LAMMPS: the thermo lines of
# in.flow (step time E_t E_r <v_x> <z> contacts contacts-per-flowing-sphere).
python3 - out_g1/series.csv lammps_1.out "$short" <<'EOF'
import csv
import sys

try:
    granula = {int(r["step"]): r for r in csv.DictReader(open(sys.argv[1]))}
except (OSError, KeyError, ValueError) as e:
    sys.exit(f"no granula series to check ({e})")
lammps = {}
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) == 8 and w[0].isdigit():
        try:
            lammps[int(w[0])] = [float(x) for x in w[1:]]
        except ValueError:
            pass
common = sorted(set(granula) & set(lammps))
if not common:
    sys.exit("no step reported by both codes")
for step in sorted({common[0], int(sys.argv[3]), common[-1]} & set(common)):
    g, l = granula[step], lammps[step]
    et, er = float(g["kinetic_translational"]), float(g["kinetic_rotational"])
    print(f"step {step}: E_t granula {et:.10g} J, LAMMPS {l[1]:.10g} J (relative difference "
          f"{abs(et - l[1]) / max(abs(l[1]), 1e-300):.1e}); E_r granula {er:.6g} J, LAMMPS {l[2]:.6g} J")
g, l = granula[common[-1]], lammps[common[-1]]
print(f"contacts at step {common[-1]}: granula {g['contacts']} pairs, {float(g['coordination']):.3f} force-carrying "
      f"contacts per flowing sphere; LAMMPS {l[5]:.0f} overlapping pairs, {l[6]:.3f} per flowing sphere")
EOF

echo "LAMMPS version: $(sed -n 's/^LAMMPS (\(.*\))$/\1/p' lammps_1.out | head -n 1)"
cpu_line
echo "date: $(date '+%Y-%m-%d %H:%M %Z')"
