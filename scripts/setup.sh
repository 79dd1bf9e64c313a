#!/usr/bin/env bash
# Installs what building and testing Living NPC needs on Debian, when it is missing.
# Sourced by demo.sh and test.sh; safe to run again.
set -euo pipefail

# System packages the build and the tests use. One list, extended as features need more.
NPC_APT_PACKAGES=(build-essential pkg-config clang libclang-dev libespeak-ng-dev espeak-ng-data
  mesa-vulkan-drivers libvulkan1 libasound2-dev)

npc_setup() {
  local missing=()
  for pkg in "${NPC_APT_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if [ "$(id -u)" -eq 0 ]; then
      echo "setup: installing ${missing[*]}" >&2
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null 2>&1; then
      echo "setup: not root; installing ${missing[*]} with sudo" >&2
      sudo apt-get update -qq
      sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      echo "setup: these Debian packages are missing and this user is not root:" >&2
      echo "  ${missing[*]}" >&2
      echo "Install them as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
      return 1
    fi
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is not installed. Install Rust (1.95 or newer) with rustup:" >&2
    echo "  https://rustup.rs, then open a new shell and run this command again." >&2
    return 1
  fi
}
