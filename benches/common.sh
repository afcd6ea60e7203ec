# What the peer benchmarks' run.sh scripts share (sourced, not run): a process session of
# their own, the granula binary, the work folder, Open MPI's settings and the CPU line.
# The caller sets `root` (the repository) before sourcing.

die() { echo "run.sh: $*" >&2; exit 2; }

# With sched_autogroup (Linux, /proc/sys/kernel/sched_autogroup_enabled = 1) CPU time is
# shared between setsid groups first: a job started elsewhere, even at nice 19, would take
# half of the cores from the timed runs. So the script runs again in a setsid group of its
# own (`own_session "${BASH_SOURCE[0]}" "$@"` at its top), with the highest autogroup
# priority where that is allowed.
own_session() {
  local script=$1
  shift
  if [ -z "${GRANULA_BENCH_SETSID:-}" ] && command -v setsid > /dev/null; then
    export GRANULA_BENCH_SETSID=1
    exec setsid -w "$BASH" "$script" "$@"
  fi
  if [ -w "/proc/$$/autogroup" ]; then
    echo -20 > "/proc/$$/autogroup" 2> /dev/null || true
  fi
}

# Prints the granula binary: $GRANULA (a path, or a name on PATH), by default the
# repository's release build; dies when there is none.
find_granula() {
  local granula=${GRANULA:-$root/target/release/granula}
  case $granula in
    */*) [[ $granula == /* ]] || granula=$PWD/$granula ;;
    *) granula=$(command -v "$granula" || echo "$granula") ;;
  esac
  [ -x "$granula" ] || die "no granula binary at $granula: build it with 'cargo build --release -p granula' in the repository (with CARGO_TARGET_DIR set, point GRANULA at \$CARGO_TARGET_DIR/release/granula)"
  echo "$granula"
}

# Sets `work` to $WORK (created) or to a temporary folder removed at exit, and enters it.
enter_work() {
  if [ -n "${WORK:-}" ]; then
    work=$WORK
    mkdir -p "$work" || die "cannot create WORK=$work"
  else
    work=$(mktemp -d) || die "mktemp failed"
    trap 'rm -rf -- "$work"' EXIT
  fi
  cd -- "$work" || die "cannot enter $work"
}

# Open MPI refuses to start as root without the first two; oversubscription lets 2 ranks
# start where Open MPI counts fewer slots than the machine has cores; one OpenMP thread.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1

# The CPU's model and the cores this process may use.
cpu_line() {
  echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(env -u OMP_NUM_THREADS nproc) cores available"
}
