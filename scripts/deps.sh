#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian 12 packages tracekit needs to build and test.
# Idempotent: only missing packages are installed. Needs root (or sudo).
set -euo pipefail

PKGS=(
  build-essential cmake pkg-config
  clang libclang-rt-14-dev          # libFuzzer + sanitizers
  libelf-dev libdw-dev              # ELF symbols
  libiberty-dev                     # C++ demangling (--demangle)
  libcapstone-dev                   # disassembly
  libncurses-dev                    # terminal browser
  libunicorn-dev                    # tracekit record
  zlib1g-dev libzstd-dev            # compressed input
  gzip zstd xz-utils                # compressed traces and dumps in the tests
  tmux time python3                 # browser tests, benchmarks, VCD checker
  gtkwave                           # vcd2fst: checks that VCD output loads
  gcc-arm-none-eabi libnewlib-arm-none-eabi   # test programs (A32/T32/M)
  gcc-aarch64-linux-gnu             # test programs (A64)
  binutils-arm-none-eabi binutils-aarch64-linux-gnu  # reference addr2line
  binutils-multiarch-dev            # libopcodes (POWER disassembly, GPL-3.0-or-later)
  gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross  # POWER test programs
  qemu-user                         # records their instruction streams
  libipt-dev                        # Intel PT decoding
  liblzma-dev                       # .xz traces
  libmicrohttpd-dev libjansson-dev  # tracekit serve
  chromium                          # browser tests (driven by playwright-core)
)
# Node.js and npm (browser tests): Debian's packages unless the machine has a
# node of its own (e.g. NodeSource's nodejs, which conflicts with Debian's npm).
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps.sh: installing: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
