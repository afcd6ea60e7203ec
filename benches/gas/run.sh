#!/usr/bin/env bash
# Dense-gas benchmark: granula and LAMMPS, interleaved, on 1 and 2 cores (see README.md).
#
#   benches/gas/run.sh [ROUNDS] [STEPS]
#
# ROUNDS (default 3) rounds of four runs each: granula 1 thread, LAMMPS 1 rank, granula
# 2 threads, LAMMPS 2 ranks. Each run goes STEPS steps (default 20000); the first 40 % are
# warm-up, the other 60 % are timed. Prints ns per particle-step of the timed steps for
# every run, then the medians [min-max], the ratios granula / LAMMPS, the speed-ups from
# 1 to 2 cores, the CPU and the date.
#
# granula's timed window: wall time of a STEPS run minus that of a run of the warm-up
# steps alone (start-up, reading the scene and writing the output cancel).
# LAMMPS' timed window: the "Loop time" of the second `run` of in.gas.
#
# Environment:
#   GRANULA     granula binary (default: target/release/granula of this repository)
#   LMP         LAMMPS binary (default: lmp)
#   WORK        folder for scenes, data and outputs (default: a temporary folder, removed
#               at the end)
#   SCENE_ARGS  extra options of make_scene.py, e.g. "--tsuji --energy-reads=when_read"
set -u

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=../common.sh
. "$here/../common.sh"
own_session "${BASH_SOURCE[0]}" "$@"

rounds=${1:-3}
steps=${2:-20000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$rounds'"
[[ $steps =~ ^[1-9][0-9]*$ ]] || die "STEPS must be a positive integer, got '$steps'"
warm=$((steps * 2 / 5))
timed=$((steps - warm))
[ "$warm" -ge 1 ] || die "STEPS must be at least 3 (40 % warm-up, 60 % timed)"
particles=10648

granula=$(find_granula) || exit 2
lmp=${LMP:-lmp}
command -v "$lmp" > /dev/null || die "LAMMPS not found ('$lmp'): install it (Debian, Ubuntu: apt-get install lammps openmpi-bin) or point LMP at its binary"
command -v mpirun > /dev/null || die "mpirun not found: LAMMPS on 2 ranks needs it (Debian, Ubuntu: apt-get install openmpi-bin)"
command -v python3 > /dev/null || die "python3 not found: make_scene.py needs it"

enter_work

gzip -dc "$here/dense_gas_10648.lmp.gz" > gas.lmp || die "cannot unpack the data file"
for t in 1 2; do
  # shellcheck disable=SC2086  # SCENE_ARGS is a list of options
  python3 "$here/make_scene.py" "$steps" "$t" ${SCENE_ARGS:-} > "gas_t${t}_full.toml" || die "make_scene.py failed"
  # shellcheck disable=SC2086
  python3 "$here/make_scene.py" "$warm" "$t" ${SCENE_ARGS:-} > "gas_t${t}_warm.toml" || die "make_scene.py failed"
done

# ns per particle-step from a time in ns (integer) or s (decimal) over the timed steps.
per_particle_step() { awk -v t="$1" -v scale="$2" -v n="$particles" -v m="$timed" 'BEGIN { printf "%.1f", t * scale / (n * m) }'; }

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
  local threads=$1 full warm_only
  full=$(granula_wall "gas_t${threads}_full.toml" "out_g${threads}") || exit 2
  warm_only=$(granula_wall "gas_t${threads}_warm.toml" "out_g${threads}_warm") || exit 2
  per_particle_step $((full - warm_only)) 1
}

lammps_ns() {
  local ranks=$1 launcher=() loop
  [ "$ranks" -gt 1 ] && launcher=(mpirun -np "$ranks")
  ${launcher[@]+"${launcher[@]}"} "$lmp" -in "$here/in.gas" -var data gas.lmp -var px "$ranks" \
    -var warm "$warm" -var timed "$timed" -log none -screen "lammps_${ranks}.out" > lammps.log 2>&1 \
    || { tail -n 20 "lammps_${ranks}.out" lammps.log >&2; die "LAMMPS failed on $ranks rank(s) (output above)"; }
  # "Loop time of T on P procs for M steps with N atoms": the last one is the timed run.
  loop=$(awk -v m="$timed" '/^Loop time of/ && $9 == m { t = $4 } END { print t }' "lammps_${ranks}.out")
  [ -n "$loop" ] || die "no 'Loop time' for $timed steps in lammps_${ranks}.out"
  per_particle_step "$loop" 1e9
}

echo "dense gas, $particles spheres, $steps steps per run ($warm warm-up, $timed timed), $rounds rounds"
echo "granula: $granula${SCENE_ARGS:+ (make_scene.py $SCENE_ARGS)}"
echo "LAMMPS: $(command -v "$lmp")"
[ -r "/proc/$$/autogroup" ] && echo "autogroup: $(cat "/proc/$$/autogroup")"
echo "ns per particle-step of the timed steps:"
# shellcheck source=../interleaved.sh
. "$here/../interleaved.sh"
interleaved_rounds "$rounds" || exit 2

# Kinetic energy at the end of the last 1-core runs: a check that both codes ran the same
# gas (they differ by the damping models, see README.md).
ke_granula=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "kinetic_translational") a = i; if ($i == "kinetic_rotational") b = i } next }
  { last = $a + $b } END { if (a && b) printf "%.4e", last }' out_g1/series.csv 2> /dev/null)
ke_lammps=$(awk -v s="$steps" '$1 == s && NF == 4 { printf "%.4e", $3 + $4 }' lammps_1.out)
echo "kinetic energy after $steps steps (last round, 1 core): granula ${ke_granula:-?} J, LAMMPS ${ke_lammps:-?} J"
echo "LAMMPS version: $(sed -n 's/^LAMMPS (\(.*\))$/\1/p' lammps_1.out | head -n 1)"
cpu_line
echo "date: $(date '+%Y-%m-%d %H:%M %Z')"
