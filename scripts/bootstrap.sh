#!/usr/bin/env bash
# Idempotent bootstrap: installs every Debian package lbsim needs (see DESIGN.md).
# Safe to run again: when every package is present it does nothing and needs no network.
set -euo pipefail

PKGS=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  libsqlite3-dev sqlite3 libzstd-dev zlib1g-dev libssl-dev
  # DARMA vt's brotli-compressed LB data files (lbsim trace import --vt; traces/vt.c)
  libbrotli-dev
  # ... read as a stream of JSON events (SAX), not a document per file (traces/vt.c)
  libyajl-dev
  libcriterion-dev libgsl-dev metis
  # every JSON lbsim writes (core/lbs_json.h)
  libjansson-dev
  # policies written in Lua (policies/lua.c)
  liblua5.4-dev
  libopenmpi-dev openmpi-bin
  libtrilinos-zoltan-dev libptscotch-dev libscotch-dev libmetis-dev
  libpapi-dev ocl-icd-opencl-dev pocl-opencl-icd opencl-headers
  gfortran valgrind python3
  # make format, and make check's format stage (.clang-format is written for clang-format 14)
  clang-format
  # SimGrid with SMPI (smpirun, its trace replayer): lbsim export simgrid's cross-check
  libsimgrid-dev
  # VTK's Python modules (Debian's /usr/bin/python3): e2e.export_vtk reads lbsim export vtk's files
  python3-vtk9
  # lbsim report: Vega, inlined into every report at build time; Chromium loads it in e2e.report
  libjs-vega chromium
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
