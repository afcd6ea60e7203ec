# Interleaved timing rounds shared by benches/gas/run.sh and benches/chute/run.sh (sourced,
# not run). The caller defines `granula_ns THREADS` and `lammps_ns RANKS`, each printing ns
# per particle-step of one timed run, and calls `interleaved_rounds ROUNDS` in its work folder.

# Prints per round granula 1 thread, LAMMPS 1 rank, granula 2 threads and LAMMPS 2 ranks (one
# after the other, so that a change in the machine's load touches all four alike), then the
# medians [min-max], the ratios granula / LAMMPS and the speed-ups from 1 to 2 cores.
interleaved_rounds() {
  local rounds=$1 r g1 l1 g2 l2
  printf '%-6s %18s %18s %18s %18s\n' round "granula 1 thread" "LAMMPS 1 rank" "granula 2 threads" "LAMMPS 2 ranks"
  : > rounds.txt
  for r in $(seq 1 "$rounds"); do
    g1=$(granula_ns 1) || return 2
    l1=$(lammps_ns 1) || return 2
    g2=$(granula_ns 2) || return 2
    l2=$(lammps_ns 2) || return 2
    echo "$g1 $l1 $g2 $l2" >> rounds.txt
    printf '%-6s %18s %18s %18s %18s\n' "$r" "$g1" "$l1" "$g2" "$l2"
  done
  python3 - rounds.txt <<'PY'
import statistics
import sys

rows = [[float(x) for x in line.split()] for line in open(sys.argv[1]) if line.strip()]
names = ["granula 1 thread", "LAMMPS 1 rank", "granula 2 threads", "LAMMPS 2 ranks"]
cols = list(zip(*rows))
med = [statistics.median(c) for c in cols]
print("median [min-max]:")
for name, m, c in zip(names, med, cols):
    print(f"  {name:18s} {m:7.1f} [{min(c):.1f}-{max(c):.1f}]")
print(f"granula / LAMMPS: {med[0] / med[1]:.2f} on 1 core, {med[2] / med[3]:.2f} on 2 cores")
print(f"speed-up 1 -> 2 cores: granula {med[0] / med[2]:.2f}, LAMMPS {med[1] / med[3]:.2f}")
PY
}
