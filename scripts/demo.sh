#!/usr/bin/env bash
# Quick start: set up, build, and run the demo: bake the demo line through the face animator
# and print a summary of the result (the full JSON lands in out/demo-bake.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
npc_setup
cargo build --release --bin npc-player
mkdir -p out
./target/release/npc-player bake --visemes projects/demo-line.json --fps 60 --seed 1 \
  --out out/demo-bake.json --plot

