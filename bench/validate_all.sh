#!/usr/bin/env bash
# bench/validate_all.sh - validation on all three apps with a schedule from every built-in policy
# and a user's steps:LIST, on this machine's probed grid and, emulated (validate --emulate), on
# the same grid with rank 1's processor at half speed (issue 31, item 5). Per app and grid:
# `lbsim validate --json` with RUNS real runs per policy (default 3, interleaved), each run's
# JSON kept (--keep), then its table: predicted against measured, the pairs reality separates
# and how many lbsim orders right, and the profiler's inflation (policy recorded).
# APPS (default "wave nbody laplace-mc"), GRIDS ("probed half"); ARGS_wave, ARGS_nbody and
# ARGS_laplace_mc add arguments to that app's profiled run, which validate's real runs repeat
# (e.g. ARGS_laplace_mc="--walks 16": 6 s a run instead of 24). Needs root for "half" (a CPU
# controller) and a quiet machine; about 20 minutes at the defaults on the 2-core VM.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_validate_all}
RUNS=${RUNS:-3}
APPS=${APPS:-wave nbody laplace-mc}
GRIDS=${GRIDS:-probed half}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpiexec --allow-run-as-root --oversubscribe"
echo "bench/validate_all: $(date -u +%FT%TZ), $(nproc) cores, $RUNS real runs per policy"
[ -s "$W/probed.ini" ] || $MPI -n 2 $B/lbsim grid probe -o "$W/probed.ini" -f </dev/null >/dev/null
python3 bench/half_grid.py "$W/probed.ini" "$W/half.ini" 0.5
policies() { # the app's steps: policies whose parameters fit its run
  case $1 in
  wave) echo "recorded,none,fixed:20,threshold:0.2,stop-at-rise,metabalancer,cost-benefit:20,adaptive:0.15:5:20,optimal,steps:60,150,240" ;;
  nbody) echo "recorded,none,fixed:10,threshold:0.2,stop-at-rise,metabalancer,cost-benefit:10,adaptive:0.15:3:10,optimal,steps:20,40" ;;
  laplace-mc) echo "recorded,none,fixed:5,threshold:0.2,stop-at-rise,metabalancer,cost-benefit:5,adaptive:0.15:2:5,optimal,steps:5,12" ;;
  esac
}
for app in $APPS; do
  # profiled with a schedule, so that policy recorded replays a run that migrated
  case $app in
  wave) sched=100,200 ;;
  nbody) sched=30 ;;
  laplace-mc) sched=10 ;;
  esac
  v=ARGS_${app//-/_}
  read -ra extra <<<"${!v:-}"
  [ -s "$W/$app.lbt" ] || $MPI -n 2 $B/$app --trace "$W/$app.lbt" --schedule "$sched" "${extra[@]}" \
    </dev/null >/dev/null 2>&1
  for grid in $GRIDS; do
    emu=()
    [ "$grid" = half ] && emu=(--emulate)
    rm -rf "$W/runs_${app}_$grid"
    $B/lbsim validate "$W/$app.lbt" --grid "$W/$grid.ini" --policies "$(policies $app)" --runs "$RUNS" \
      --mpiexec "$MPI" "${emu[@]}" --keep "$W/runs_${app}_$grid" </dev/null | tee "$W/${app}_$grid.txt"
  done
done
