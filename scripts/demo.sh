#!/usr/bin/env bash
# Quick start: set up, build, and run the demo. Generates the default content once (head,
# avatar, scene, skies), checks the demo project against it, then speaks the demo line with
# the offline engine and bakes it through the face animator, printing a chart of the result.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
npc_setup
cargo build --release --bin npc-player
player=./target/release/npc-player
if [ ! -f projects/assets/avatar.glb ] || [ ! -f projects/assets/sky/sky_night_nz.png ]; then
  "$player" generate-assets --out projects/assets >/dev/null
  echo "demo: default content written to projects/assets/"
fi
"$player" check --project projects/demo.ron
mkdir -p out
"$player" bake --project projects/demo.ron --text "Welcome, traveler. What brings you here?" \
  --fps 60 --seed 1 --out out/demo-bake.json --plot
echo "demo: audio in out/demo-bake.wav, every animation stage in out/demo-bake.json"
