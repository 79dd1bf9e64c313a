#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
npc_setup
npc_gltf_validator
npc_test_captures
npc_speech_eval
npc_mfa_clips
npc_basisu
npc_vrm_avatars
npc_python_osc
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --all-targets
