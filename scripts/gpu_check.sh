#!/usr/bin/env bash
# scripts/gpu_check.sh - calibrate's cuda target checked on a real NVIDIA GPU, in one run:
#   1. the device (nvidia-smi), and the CUDA kernels built (cuda.cu, for this device's
#      compute capability);
#   2. every cuda kernel's outputs against the plain host reference (test_opencl's cuda suite);
#   3. IPGs of two kernels, matmul and wave, on cpu, threads and cuda over a short range;
#   4. a RACECAR plan of CPU threads + the GPU for matmul, run for real against its prediction
#      (run-plan checks each run's output against the adapter's reference);
#   5. the IPGs verified on random invocations; the figures printed, and kept under -o DIR.
# On a machine without an NVIDIA GPU it says so and exits 0; a GPU that is there but fails any
# step exits 1.
#
# usage: scripts/gpu_check.sh [-o DIR] [--prebuilt DIR] [--quick]
#        scripts/gpu_check.sh --bundle DIR
#   -o DIR          where the calibration database and the logs go (default build-gpu/check)
#   --prebuilt DIR  use DIR/bin/lbsim and DIR/bin/test_opencl, with DIR/lib on the library path,
#                   instead of building: for a GPU node without the project's build
#                   dependencies (no MPI, Zoltan, ...). The kernels are still compiled there
#                   with that node's nvcc, for its device, as a check that they build.
#   --bundle DIR    on a build machine (make check's dependencies and nvcc): build, and copy
#                   lbsim, test_opencl and the shared libraries they need (not the C library's
#                   own) into DIR, for --prebuilt on the GPU node; needs no GPU
#   --quick         a shorter range and timeout (about half the time)
# environment: BUILD (default build-gpu), GPU_CHECK_THREADS (the plan's CPU threads; default
#   the online CPUs, at most 8), GPU_CHECK_TIMEOUT (seconds per implementation; default 40),
#   GPU_CHECK_TARGET (default cuda; opencl rehearses every step on an OpenCL device, as PoCL
#   on a machine without a GPU), GPU_CHECK_NVIDIA_SMI (the command that lists the GPUs;
#   default nvidia-smi)
#
# examples:
#   scripts/gpu_check.sh                         # on a GPU machine set up by make bootstrap
#   scripts/gpu_check.sh --bundle .gpu           # here; then, on the GPU node:
#   scripts/gpu_check.sh --prebuilt .gpu -o out
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build-gpu}
OUTDIR=$BUILD/check
PREBUILT=
BUNDLE=
QUICK=0
TARGET=${GPU_CHECK_TARGET:-cuda}
TIMEOUT=${GPU_CHECK_TIMEOUT:-40}

die() { echo "gpu_check: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    -o) [ $# -ge 2 ] || die "-o: needs a directory"; OUTDIR=$2; shift 2 ;;
    --prebuilt) [ $# -ge 2 ] || die "--prebuilt: needs a directory"; PREBUILT=$2; shift 2 ;;
    --bundle) [ $# -ge 2 ] || die "--bundle: needs a directory"; BUNDLE=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$TARGET" in cuda | opencl) ;; *) die "GPU_CHECK_TARGET: '$TARGET' is neither cuda nor opencl" ;; esac
case "$TIMEOUT" in '' | *[!0-9]*) die "GPU_CHECK_TIMEOUT: '$TIMEOUT' is not a whole number of seconds" ;; esac
[ "$QUICK" = 1 ] && TIMEOUT=$((TIMEOUT / 2))

# The project's build with the CUDA target; CUDA_ARCH (e.g. 90) adds this device's code.
build() {
  local archs="80;90"
  [ -n "${1:-}" ] && case ";$archs;" in *";$1;"*) ;; *) archs="$archs;$1" ;; esac
  echo "== build ($BUILD, CUDA architectures $archs)"
  mkdir -p "$BUILD"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES="$archs" >"$BUILD/cmake.log" 2>&1 ||
    { cat "$BUILD/cmake.log"; die "cmake failed (make bootstrap installs the dependencies)"; }
  grep -q "CUDA: calibrate's cuda target" "$BUILD/cmake.log" ||
    die "this build has no cuda target: $(grep 'CUDA:' "$BUILD/cmake.log" || echo 'nvcc not found')"
  cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)" --target lbsim test_opencl >"$BUILD/build.log" 2>&1 ||
    { tail -40 "$BUILD/build.log"; die "the build failed (log: $BUILD/build.log)"; }
}

if [ -n "$BUNDLE" ]; then
  mkdir -p "$(dirname "$BUILD")"
  build ""
  rm -rf "$BUNDLE"
  mkdir -p "$BUNDLE/bin" "$BUNDLE/lib"
  cp "$BUILD/bin/lbsim" "$BUILD/bin/test_opencl" "$BUNDLE/bin/"
  # Every shared library the two load, except the C library's own (the GPU node has its own,
  # as new or newer) and the CUDA driver (the node's, matched to its kernel module).
  ldd "$BUNDLE/bin/lbsim" "$BUNDLE/bin/test_opencl" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    while read -r lib; do
      case "$(basename "$lib")" in
        libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libresolv.so* | libcuda.so*) ;;
        *) cp -L "$lib" "$BUNDLE/lib/" ;;
      esac
    done
  echo "gpu_check: bundle in $BUNDLE ($(du -sh "$BUNDLE" | cut -f1)): on the GPU node, scripts/gpu_check.sh --prebuilt $BUNDLE"
  exit 0
fi

# 1. The device.
T0=$(date +%s)
GPU=
if [ "$TARGET" = cuda ]; then
  SMI=${GPU_CHECK_NVIDIA_SMI:-nvidia-smi}
  if ! command -v "$SMI" >/dev/null 2>&1; then
    why="$SMI is not installed"
    ls /dev/nvidia[0-9]* >/dev/null 2>&1 && why="$why, though /dev has NVIDIA devices"
    echo "gpu_check: no NVIDIA GPU found ($why); nothing to check"
    exit 0
  fi
  if ! GPU=$("$SMI" --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1) ||
    [ -z "$GPU" ]; then
    echo "gpu_check: no NVIDIA GPU found ($SMI: $(echo "${GPU:-no device listed}" | head -1)); nothing to check"
    exit 0
  fi
  GPU=$(echo "$GPU" | head -1)
  echo "== device: $GPU"
  CC=$(echo "$GPU" | awk -F', ' '{print $2}')
  ARCH=${CC/./}
  case "$ARCH" in '' | *[!0-9]*) die "nvidia-smi gave no compute capability ('$CC')" ;; esac
else
  echo "== rehearsal on OpenCL (GPU_CHECK_TARGET=opencl): every step, no GPU"
  ARCH=
fi

# The binaries: built here, or carried.
if [ -n "$PREBUILT" ]; then
  [ -x "$PREBUILT/bin/lbsim" ] && [ -x "$PREBUILT/bin/test_opencl" ] ||
    die "--prebuilt $PREBUILT: no bin/lbsim and bin/test_opencl there (make it with --bundle)"
  BIN=$(cd "$PREBUILT/bin" && pwd)
  export LD_LIBRARY_PATH="$(cd "$PREBUILT/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [ "$TARGET" = cuda ]; then
    NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    [ -x "$NVCC" ] || die "nvcc not found: the kernels cannot be built here"
    echo "== the CUDA kernels built here: $("$NVCC" --version | tail -1), sm_$ARCH"
    mkdir -p "$BUILD"
    t=$(date +%s.%N)
    "$NVCC" -arch="sm_$ARCH" -O3 -c calibrate/cuda.cu -o "$BUILD/cuda_check.o" -Icalibrate -Icore -Iinclude -Iworkloads \
      -Xcompiler=-Wall,-Wextra 2>&1 || die "nvcc could not build calibrate/cuda.cu for sm_$ARCH"
    echo "   calibrate/cuda.cu: $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}') s," \
      "$("${NVCC%/nvcc}/cuobjdump" --list-elf "$BUILD/cuda_check.o" 2>/dev/null | wc -l) ELF image(s)"
  fi
else
  mkdir -p "$(dirname "$BUILD")"
  build "$ARCH"
  BIN=$ROOT/$BUILD/bin
fi
L=$BIN/lbsim
"$L" --version >/dev/null || die "$L does not start (missing libraries? ldd $L)"

mkdir -p "$OUTDIR"
DB=$OUTDIR/calib.db
rm -f "$DB" "$DB-journal"
NPROC=$(nproc 2>/dev/null || echo 2)
THREADS=${GPU_CHECK_THREADS:-$((NPROC < 8 ? NPROC : 8))}
case "$THREADS" in '' | *[!0-9]* | 0) die "GPU_CHECK_THREADS: '$THREADS' is not a positive whole number" ;; esac
FAILED=0
fail() { echo "gpu_check: FAILED: $*"; FAILED=1; }
step() { echo; echo "== $1"; }

# 2. Outputs against the host reference: every kernel, several sizes, on the device.
step "$TARGET kernels against the host reference (test_opencl --filter '$TARGET/*')"
tlog=$OUTDIR/kernels.log
"$BIN/test_opencl" --filter "$TARGET/*" --verbose >"$tlog" 2>&1 || true
grep -E "^\\[(PASS|FAIL|SKIP|ERR|----)\\] $TARGET::|^\\[----\\] .*(Assertion|signal)" "$tlog" || true
syn=$(grep 'Synthesis' "$tlog" | tail -1)
echo "   $syn"
npass=$(grep -c '^\[PASS\]' "$tlog" || true)
if grep -qE "^\\[SKIP\\] $TARGET::" "$tlog"; then
  fail "the $TARGET kernels were skipped: $(grep -m1 -E "^\\[SKIP\\] $TARGET::" "$tlog")"
elif [ "$npass" -lt 7 ] || ! echo "$syn" | grep -q 'Failing: 0 | Crashing: 0'; then
  fail "the $TARGET kernels do not all match the host reference (log: $tlog)"
fi

# 3. IPGs: matmul (compute-bound) and wave (apps/wave's update, memory-bound) on the CPU and the
# device over a short range. A partial IPG (the timeout's 90%) is reported, not a failure.
if [ "$QUICK" = 1 ]; then MM_RANGE=1e4:2e7 WV_RANGE=4:4000; else MM_RANGE=1e4:6e7 WV_RANGE=4:12000; fi
ipgs() { # kernel range
  step "IPGs of $1 on cpu, threads ($THREADS) and $TARGET, range $2"
  local rc=0 t
  t=$(date +%s)
  "$L" calibrate run --kernel "$1" --impl "cpu,threads,$TARGET" --threads "$THREADS" --range "$2" --accuracy 10 \
    --min-abs 1e-4 --timeout "$TIMEOUT" --max-samples 600 -o "$DB" 2>&1 | tee "$OUTDIR/run-$1.log" || rc=$?
  echo "   ($(( $(date +%s) - t )) s, exit $rc)"
  grep -q "$1.$TARGET" "$OUTDIR/run-$1.log" || fail "no $1.$TARGET IPG"
  grep -E "$1\.$TARGET.*(failed|killed)" "$OUTDIR/run-$1.log" && fail "$1.$TARGET failed"
  return 0
}
ipgs matmul "$MM_RANGE"
ipgs wave "$WV_RANGE"

# 4. The plan: CPU threads and the device for matmul, run for real (outputs checked against the
# adapter's reference on each work's first run).
step "RACECAR plan of matmul on threads=$THREADS,$TARGET=1"
"$L" calibrate plan --kernel matmul --node "threads=$THREADS,$TARGET=1" --allow-partial -o "$DB" >"$OUTDIR/plan.log" 2>&1 ||
  fail "calibrate plan"
# Its head and the whole node's rows of the implementation table; the rest in plan.log.
sed -n '1,/^implementation table/p' "$OUTDIR/plan.log"
awk -v ws="$THREADS threads + ${TARGET}0 " '/^implementation table/ {on = 1} /^parallelization table/ {on = 0}
  /^[^ ]/ {cur = index($0, ws) == 1} on && cur' "$OUTDIR/plan.log" | head -24
step "the plan run for real against its prediction"
hi=${MM_RANGE#*:}
works=$(awk -v h="$hi" 'BEGIN{printf "%g,%g,%g,%g", h/100, h/10, h/3, h}')
"$L" calibrate run-plan "$DB" --kernel matmul --work "$works" --repeat 3 2>&1 | tee "$OUTDIR/run-plan.log" ||
  fail "calibrate run-plan"

# 5. The IPGs against random invocations, and the curves.
step "the IPGs verified on random invocations"
"$L" calibrate verify "$DB" -n 40 2>&1 | tee "$OUTDIR/verify.log" || echo "   (verify refused some IPGs; see above)"
step "the curves"
"$L" calibrate show "$DB" 2>&1 | tee "$OUTDIR/show.log" >/dev/null
"$L" calibrate show "$DB" --json >"$OUTDIR/show.json" 2>/dev/null || true
grep -E "^ *[0-9]+ (matmul|wave)\.|^ +(stopped|failed)" "$OUTDIR/show.log" || sed -n '1,30p' "$OUTDIR/show.log"

echo
echo "== gpu_check: ${GPU:-$TARGET rehearsal}; $(( $(date +%s) - T0 )) s; results in $OUTDIR"
if [ "$FAILED" = 1 ]; then
  echo "gpu_check: some steps FAILED (see above)"
  exit 1
fi
echo "gpu_check: every step passed"
