#!/usr/bin/env bash
# Quick start: set up, build, and play the demo.
#  1. generates the default content once (head, avatar, scene, skies) and checks the demo
#     project against it;
#  2. speaks the demo line offline and bakes it through the face animator (chart below);
#  3. plays the live demo: three NPCs in the scene while the agent simulator writes their
#     conversation, each line spoken once, in order, lips on the audio. In a window when there
#     is a display (WASD and mouse drag to walk and look, Esc to quit; the microphone heard);
#     otherwise offscreen, with close-up frames written to out/frames/;
#  4. offline, talks with them: a line the offline engine speaks in a man's voice plays as the
#     person in front of Elara (--mic-file); she listens, the utterance lands in heard.jsonl,
#     the example agent answers, and she replies (events in out/demo-talk-events.jsonl).
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
"$player" bake --project projects/demo.ron --npc Elara \
  --text "Welcome, traveler. What brings you here?" --fps 60 --out out/demo-bake.json --plot
echo "demo: audio in out/demo-bake.wav, every animation stage in out/demo-bake.json (as Elara plays it live)"

agents=out/demo-agents
rm -rf "$agents" out/demo-events.jsonl
mkdir -p "$agents"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "demo: the live demo in a window (WASD + mouse drag to walk and look, Esc to quit)"
  exec "$player" run --project projects/demo.ron --agent-dir "$agents" --agent-sim \
    --events out/demo-events.jsonl --mic
fi

echo "demo: no display here; playing the live demo offscreen with the agent simulator"
"$player" run --project projects/demo.ron --agent-dir "$agents" --agent-sim --headless \
  --size 640x360 --duration 40 --events out/demo-events.jsonl 2>out/demo-runtime.log
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

# Close-up frames of Elara saying the first line.
closeup=out/demo-closeup-agents
rm -rf "$closeup" out/frames
mkdir -p "$closeup/conversations"
echo '{"conversations": [{"file": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}]}' \
  > "$closeup/active.json"
echo '{"seq": 0, "speaker_id": "Elara", "text": "Good morning, Bram. You are up early."}' \
  > "$closeup/conversations/c.jsonl"
"$player" render --project projects/demo.ron --agent-dir "$closeup" --closeup Elara \
  --frames 45 --fps 15 --size 640x360 --overlay --out out/frames --record out/demo-record.jsonl
echo "demo: close-up frames of Elara speaking, subtitled, in out/frames/ (frame_0000.png ...), every frame's numbers in out/demo-record.jsonl"

# Talking with them, offline: the person is a line spoken in another voice, played into the
# microphone's path; Elara is in front of the camera, so she is the one addressed.
talk=out/demo-talk-agents
rm -rf "$talk" out/demo-talk-events.jsonl
mkdir -p "$talk"
"$player" say --text "Good morning! Do you know the way to the coast?" --gender male \
  --out out/demo-person.wav >/dev/null
"$player" agent-sim --answer --agent-dir "$talk" --duration 13 >/dev/null &
answerer=$!
"$player" run --project projects/demo.ron --agent-dir "$talk" --headless --closeup Elara \
  --mic-file out/demo-person.wav --size 640x360 --duration 12 \
  --events out/demo-talk-events.jsonl --record out/demo-talk-record.jsonl 2>out/demo-talk.log
wait "$answerer" || true
python3 - out/demo-talk-events.jsonl "$talk" <<'PY' || cat out/demo-talk-events.jsonl
import json, os, sys
replies = {}
path = os.path.join(sys.argv[2], "conversations/person.jsonl")
if os.path.exists(path):
    for raw in open(path):
        if raw.strip():
            line = json.loads(raw)
            replies[line["seq"]] = line["text"]
for raw in open(sys.argv[1]):
    e = json.loads(raw)
    if e["event"] == "person_started":
        print(f'  person starts speaking to {e["to"]} at {e["start_ms"]:.0f} ms')
    elif e["event"] == "heard":
        print(f'  heard.jsonl seq {e["seq"]}: "{e["text"]}" ({e["latency_ms"]:.0f} ms after the speech ended)')
    elif e["event"] == "line_started" and e["conversation"] == "conversations/person.jsonl":
        print(f'  {e["npc"]} answers: {replies.get(e["seq"], "")}')
PY
echo "demo: the person's speech in $talk/heard/, every frame's numbers in out/demo-talk-record.jsonl"
