#!/usr/bin/env bash
# bench/migration.sh - the migration model (issue 30, item 4): the replay's migration time per
# repartition against the application's own measured Zoltan_Migrate, on this machine.
#   1. lbsim grid probe on 2 ranks: this machine as a grid, with the migration model it fits to
#      real Zoltan_Migrate calls ([grid] migration_fixed_us, migration_per_elem_ns,
#      migration_gbps); the same grid without those keys is the links alone (as before);
#   2. wave at its default size on 2 ranks, profiled (--trace) with a schedule (SCHEDULE,
#      default 20,40): the trace records each rank's migration_s per repartition;
#   3. replays of the trace on each grid: --policy steps:SCHEDULE with the app's partitioner
#      (the same steps; its partitions, and so the cells moved, differ from the app's), --policy
#      fixed:20, and --policy recorded (the app's own measured migration, for reference):
#      migration per repartition and per moved cell against the app's measured one;
#   4. the model's formula on the app's own moves (cells moved x per cell + fixed per
#      repartition): the model alone, apart from the replay's partitions;
#   5. the application's own rate ([sim] migration_cost = measured, the default): the replay
#      fits it to the migrations the trace recorded and charges it for steps:SCHEDULE and
#      fixed:20, partitioning with the app's own weights (rows 3-4 set migration_cost = model,
#      so that they stay the probe's and the links'); and a cross-check on another run:
#      wave with --policy fixed:20, its measured migration against the rate (fitted to the
#      SCHEDULE run) on its own moves; that run is profiled too, and its own rate (fitted to its 14 migrations) predicts the
#      SCHEDULE run's the other way round.
# Run on a quiet machine (nothing else busy). Extra arguments go to wave.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_migration}
S=${SCHEDULE:-20,40}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpiexec --allow-run-as-root --oversubscribe)
echo "bench/migration: $(date -u +%FT%TZ), $(nproc) cores, wave --schedule $S $*"
"${MPI[@]}" -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f --json </dev/null >"$W/probe.json"
grep -v '^migration_' "$W/machine.ini" >"$W/links.ini"
rm -f "$W/w.lbt"
"${MPI[@]}" -n 2 $B/wave --quiet --schedule "$S" --trace "$W/w.lbt" --json "$W/prof.json" "$@" \
  </dev/null >/dev/null
$B/lbsim trace info "$W/w.lbt" | sed -n 's/^app *//p' | tr ',' '\n' | sed 's/^ *//' >"$W/meta.txt"
part=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wave"]["partitioner"])' "$W/prof.json")
for g in machine links; do # the grid's model or the links: not the trace's rate
  $B/lbsim replay "$W/w.lbt" --grid "$W/$g.ini" --policy "steps:$S" --partitioner "$part" \
    --set sim.migration_cost=model --json >"$W/steps-$g.json"
  $B/lbsim replay "$W/w.lbt" --grid "$W/$g.ini" --policy fixed:20 --partitioner "$part" \
    --set sim.migration_cost=model --json >"$W/fixed-$g.json"
done
# the trace's rate (the default), with the app's own partition weights (app.partition_metric),
# so that the replay moves about the cells the app moved
pm=$(sed -n 's/^partition_metric=//p' "$W/meta.txt")
for pol in "steps:$S" fixed:20; do
  $B/lbsim replay "$W/w.lbt" --grid "$W/machine.ini" --policy "$pol" --partitioner "$part" \
    ${pm:+--partition-metric "$pm"} --json >"$W/${pol%%:*}-trace.json"
done
# the other run, profiled as the first (so that both carry the profiler's perturbation), and
# its own rate (fitted to its 14 migrations) to predict the first the other way round
rm -f "$W/fx.lbt"
"${MPI[@]}" -n 2 $B/wave --quiet --policy fixed:20 --trace "$W/fx.lbt" --json "$W/app-fixed.json" "$@" \
  </dev/null >/dev/null
$B/lbsim replay "$W/fx.lbt" --grid "$W/machine.ini" --policy "steps:$S" --partitioner "$part" \
  ${pm:+--partition-metric "$pm"} --json >"$W/fx-steps.json"
$B/lbsim replay "$W/w.lbt" --grid "$W/machine.ini" --policy recorded --json >"$W/recorded.json"
python3 - "$W" "$S" <<'PY'
import json, sys
W, S = sys.argv[1], sys.argv[2]
ld = lambda n: json.load(open(f"{W}/{n}.json"))
p, a = ld("probe"), ld("prof")
m = p["migration"]
print(f"probe: {m['fixed_us']} us + {m['per_elem_ns']} ns per element + bytes at {m['gbps']} Gbit/s "
      f"(rms {100 * m['fit_rms']:.1f}%)")
n, moved = len(a["repartitions"]), a["wave"]["moved"]
app = a["migration_s"] / n
bpe = float(next(l.split("=", 1)[1] for l in open(f"{W}/meta.txt") if l.startswith("bytes_per_elem=")))
print(f"wave: repartitions at {a['repartitions']}, {moved} cells of {bpe:.0f} B moved, measured "
      f"migration {1e3 * app:.2f} ms per repartition (the slower rank's), {1e6 * app * n / moved:.1f} us per moved cell")
# the model's formula on the app's own moves: on 2 processors each one sends or receives every
# moved cell, so each processor's count is the cells moved
model = n * m["fixed_us"] * 1e-6 + moved * (m["per_elem_ns"] * 1e-9 + (bpe * 8 / m["gbps"] * 1e-9 if m["gbps"] else 0))
print(f"  the model on the app's own moves: {1e3 * model / n:.2f} ms per repartition ({model / (app * n):.2f}x the app's)")
r = ld("recorded")
print(f"  recorded replay: {1e3 * r['migration_time_s'] / r['repartitions']:.2f} ms per repartition")
for pol in ("steps", "fixed"):
    for g in ("links", "machine"):
        r = ld(f"{pol}-{g}")
        k, mv = r["repartitions"], r["moved_elements"]
        per = r["migration_time_s"] / k if k else 0
        print(f"  {r['policy']:>12} on {'the links alone' if g == 'links' else 'the probed model'}: "
              f"{k} repartitions, {mv} moved, {1e3 * per:.3f} ms per repartition ({per / app:.2f}x the app's), "
              f"{1e6 * r['migration_time_s'] / mv if mv else 0:.1f} us per moved cell")
rate = ld("steps-trace")["migration_rate"]
print(f"the app's own rate, fitted to the trace: {rate['per_elem_ns']:.6g} ns per element + "
      f"{rate['fixed_us']:.6g} us ({rate['fit']}, {rate['points']} points)")
own = n * rate["fixed_us"] * 1e-6 + moved * rate["per_elem_ns"] * 1e-9
print(f"  the rate on the app's own moves (in sample): {1e3 * own / n:.2f} ms per repartition ({own / (app * n):.2f}x the app's)")
for pol in ("steps", "fixed"):
    r = ld(f"{pol}-trace")
    k, mv = r["repartitions"], r["moved_elements"]
    per = r["migration_time_s"] / k if k else 0
    print(f"  {r['policy']:>12} at the trace's rate: {k} repartitions, {mv} moved, {1e3 * per:.3f} ms per "
          f"repartition ({per / app:.2f}x the app's under {S})")
b = ld("app-fixed")
nb, mb = len(b["repartitions"]), b["wave"]["moved"]
appb = b["migration_s"] / nb
pred = nb * rate["fixed_us"] * 1e-6 + mb * rate["per_elem_ns"] * 1e-9
print(f"cross-check, wave --policy fixed:20 (another run): {nb} repartitions, {mb} cells moved, measured "
      f"{1e3 * appb:.2f} ms per repartition ({1e6 * appb * nb / mb if mb else 0:.1f} us per moved cell)")
print(f"  the trace's rate on its moves: {1e3 * pred / nb:.2f} ms per repartition ({pred / (appb * nb):.2f}x measured)")
rb = ld("fx-steps")["migration_rate"]
predb = n * rb["fixed_us"] * 1e-6 + moved * rb["per_elem_ns"] * 1e-9
print(f"  its own rate, fitted to its trace: {rb['per_elem_ns']:.6g} ns per element + {rb['fixed_us']:.6g} us "
      f"({rb['fit']}, {rb['points']} points); on the {S} run's moves {1e3 * predb / n:.2f} ms per repartition "
      f"({predb / (app * n):.2f}x that run's measured)")
rf = ld("fixed-trace")
if rf["repartitions"]:
    perf = rf["migration_time_s"] / rf["repartitions"]
    print(f"  replay fixed:20 at the trace's rate: {1e3 * perf:.2f} ms per repartition ({perf / appb:.2f}x measured; "
          f"{rf['moved_elements']} moved against the app's {mb})")
PY
uptime
