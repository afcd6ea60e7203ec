#!/usr/bin/env bash
# Runs the same settling of 1000 glass beads in granula (granula_settling.py, the Python
# builder) and in YADE (yade_settling.py), one thread each, and prints the lines of code and
# the wall times of both, then their results side by side.
#
#   examples/python/settling_compare/run.sh
#
# PYTHON: a Python with granula installed (default python3); YADE: the YADE command
# (default yade). SETTLING_DURATION (s) shortens or lengthens both runs (default 0.3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PYTHON="${PYTHON:-python3}"
YADE="${YADE:-yade}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Lines of code: neither blank nor a comment.
loc() { grep -cvE '^[[:space:]]*(#|$)' "$1"; }

# Runs a command, its output to $out/$1.txt; prints the whole process's wall time (s).
timed() {
    local name=$1
    shift
    local start end
    start=$(date +%s%N)
    if ! "$@" >"$out/$name.txt" 2>&1; then
        cat "$out/$name.txt" >&2
        echo "$name failed" >&2
        exit 1
    fi
    end=$(date +%s%N)
    printf '%d.%02d' $(((end - start) / 1000000000)) $((((end - start) / 10000000) % 100))
}

field() { sed -n "s/.*RESULT code=$1 .* $2=\([^ ]*\).*/\1/p" "$out/$1.txt"; }

echo "running granula ..." >&2
granula_wall=$(cd "$here" && timed granula "$PYTHON" granula_settling.py)
echo "running YADE ..." >&2
yade_wall=$(cd "$here" && timed yade "$YADE" -n -x -j1 yade_settling.py)

# The process's wall time (start-up included), the stepping's wall and CPU time, and the
# stepping's wall and CPU time per bead and step.
row() { printf '%-8s %6s %12s %13s %12s %14s %13s\n' "$@"; }
row "" lines "process (s)" "stepping (s)" "CPU (s)" "ns/bead-step" "CPU ns/b-s"
for code in granula yade; do
    wall_var="${code}_wall"
    row "$code" "$(loc "$here/${code}_settling.py")" "${!wall_var}" "$(field "$code" wall_s)" \
        "$(field "$code" cpu_s)" "$(field "$code" ns_per_bead_step)" "$(field "$code" cpu_ns_per_bead_step)"
done
echo "(both import common.py, $(loc "$here/common.py") lines: the beads, box, material, dt and summary)"
echo
printf '%-10s %6s %12s %12s %12s %11s %9s\n' "" "steps" "KE trans (J)" "KE rot (J)" "mean z (mm)" "top z (mm)" "contacts"
for code in granula yade; do
    printf '%-10s %6s %12s %12s %12s %11s %9s\n' "$code" "$(field "$code" steps)" \
        "$(field "$code" ke_translational_J)" "$(field "$code" ke_rotational_J)" \
        "$(field "$code" mean_z_mm)" "$(field "$code" top_z_mm)" "$(field "$code" contacts)"
done
echo
echo "translational kinetic energy (J) of the beads:"
printf '%8s %12s %12s\n' "t (s)" granula YADE
join <(sed -n 's/^SAMPLE code=granula t=\([^ ]*\) ke_translational_J=\(.*\)/\1 \2/p' "$out/granula.txt") \
    <(sed -n 's/^SAMPLE code=yade t=\([^ ]*\) ke_translational_J=\(.*\)/\1 \2/p' "$out/yade.txt") |
    awk '{ printf "%8s %12s %12s\n", $1, $2, $3 }'
