#!/usr/bin/env bash
# e2e.gpu_check: scripts/gpu_check.sh where there is no GPU (this machine, as CI's): without
# nvidia-smi, and with an nvidia-smi that lists no device, it says that no NVIDIA GPU was found
# and exits 0 without building anything; bad arguments and a device it cannot read exit 1 with
# a message. (The check itself runs on a GPU machine: bench/RESULTS.md has its figures.)
set -u
SRC=$1
S=$SRC/scripts/gpu_check.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
check() { # what expected-rc expected-text -- command...
  local what=$1 want=$2 text=$3
  shift 4
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" != "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: $what: exit $rc (want $want), output:"; echo "$out"; fails=$((fails + 1))
  else
    echo "ok: $what"
  fi
}
export BUILD=$T/build
check "no nvidia-smi" 0 "gpu_check: no NVIDIA GPU found ($T/none is not installed); nothing to check" -- \
  env GPU_CHECK_NVIDIA_SMI="$T/none" bash "$S" -o "$T/out"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$T/smi-none"
chmod +x "$T/smi-none"
check "nvidia-smi lists no device" 0 "gpu_check: no NVIDIA GPU found ($T/smi-none: No devices were found); nothing to check" -- \
  env GPU_CHECK_NVIDIA_SMI="$T/smi-none" bash "$S"
[ ! -e "$T/build" ] && [ ! -e "$T/out" ] && echo "ok: nothing built or written" ||
  { echo "FAIL: a run without a GPU built or wrote something"; fails=$((fails + 1)); }
printf '#!/bin/sh\necho "Odd GPU, x.y, 1.0, 1 MiB"\n' >"$T/smi-odd"
chmod +x "$T/smi-odd"
check "a device whose compute capability cannot be read" 1 "gpu_check: nvidia-smi gave no compute capability ('x.y')" -- \
  env GPU_CHECK_NVIDIA_SMI="$T/smi-odd" bash "$S"
check "an unknown argument" 1 "gpu_check: unknown argument '--bogus' (see --help)" -- bash "$S" --bogus
check "-o without a directory" 1 "gpu_check: -o: needs a directory" -- bash "$S" -o
check "a target that is neither" 1 "GPU_CHECK_TARGET: 'rocm' is neither cuda nor opencl" -- env GPU_CHECK_TARGET=rocm bash "$S"
check "--help" 0 "--prebuilt DIR" -- bash "$S" --help
check "--prebuilt without a bundle" 1 "--prebuilt $T: no bin/lbsim and bin/test_opencl there" -- \
  env GPU_CHECK_TARGET=opencl bash "$S" --prebuilt "$T"
[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
