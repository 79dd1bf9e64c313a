#!/usr/bin/env bash
# Makes the README's two pictures again, with the current renderer and studio:
#  docs/images/player.png: `npc-player render --overlay` of the demo at mid-morning (time of
#    day 0.4), Elara 1.5 s into a line, subtitled as it is heard, names over the NPCs;
#  docs/images/studio.png: the studio (under Xvfb) with the demo line spoken, the timeline
#    at 0.9 s.
# Needs the player and studio built (BIN, default target/release) and xvfb-run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release}
if [ ! -f projects/assets/avatar.glb ]; then
  "$bin/npc-player" generate-assets --out projects/assets >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/agents/conversations"
echo '{"seq": 0, "speaker_id": "Elara", "text": "Welcome, traveler. The road north is open again, and the market starts at noon."}' \
  > "$work/agents/conversations/welcome.jsonl"
echo '{"conversations": [{"file": "conversations/welcome.jsonl"}]}' > "$work/agents/active.json"
"$bin/npc-player" render --project projects/demo.ron --agent-dir "$work/agents" \
  --frames 46 --fps 30 --size 1280x720 --time-of-day 0.4 --overlay --out "$work/frames"
cp "$work/frames/frame_0045.png" docs/images/player.png
xvfb-run -a -s "-screen 0 1440x900x24" "$bin/npc-studio" projects/demo.ron \
  --speak "Welcome, traveler. What brings you here?" --screenshot docs/images/studio.png
echo "README pictures written: docs/images/player.png, docs/images/studio.png"
