#!/usr/bin/env bash
# Quick start: set up, build, and run the demo.
#  1. generates the default content once (head, avatar, scene, skies) and checks the demo
#     project against it;
#  2. speaks the demo line offline and bakes it through the face animator (chart below);
#  3. runs the live runtime headless against an agent directory while the agent simulator
#     plays the demo conversation: every line spoken once, in order, spoken.json advancing.
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

agents=out/demo-agents
rm -rf "$agents" out/demo-events.jsonl
mkdir -p "$agents"
echo "demo: live runtime (headless) with the agent simulator in $agents"
"$player" run --project projects/demo.ron --agent-dir "$agents" --headless --no-render \
  --duration 60 --events out/demo-events.jsonl 2>out/demo-runtime.log &
runtime=$!
trap 'kill $runtime 2>/dev/null || true' EXIT
"$player" agent-sim --agent-dir "$agents"
kill "$runtime" 2>/dev/null || true
wait "$runtime" 2>/dev/null || true
python3 - out/demo-events.jsonl "$agents/conversations/demo.jsonl" <<'PY' || cat out/demo-events.jsonl
import json, sys
lines = {}
for raw in open(sys.argv[2]):
    if raw.strip():
        line = json.loads(raw)
        lines[line["seq"]] = line
for raw in open(sys.argv[1]):
    e = json.loads(raw)
    if e["event"] == "line_started":
        text = lines.get(e["seq"], {}).get("text", "")
        print(f'  {e["speaker_id"]:>6} (seq {e["seq"]}, audio after {e["latency_ms"]:.1f} ms): {text}')
PY
echo "demo: spoken.json -> $(tr -d ' \n' < "$agents/spoken.json")"
