#!/usr/bin/env python3
"""A small agent that answers the person in front of the player (standard library only).

It follows AGENT_DIR/heard.jsonl as `npc-player run --mic` / `--mic-file` writes it (protocol
1.1, docs/agent-protocol.md), and answers each utterance addressed to an NPC with the next of
a few scripted replies, spoken by that NPC in conversations/person.jsonl (named in
active.json beside whatever else plays). Utterances addressed to nobody get no answer.

Each reply is streamed, as `npc-player agent-sim --answer` does: `npc-player say` speaks it to
a WAV, the line naming lines/person-NNNN.wav with "stream": true is appended, then the samples
are written into that file behind a header of unknown sizes, 40 ms at a time at PACE times real
time (0: at once), and lines/person-NNNN.wav.done ends it. When the speech command cannot run,
it says so once on stderr and answers with text lines, which the player synthesises.

    python3 examples/answer_agent.py AGENT_DIR [--seconds S] [--player PATH] [--pace X]
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import wave

REPLIES = [
    "Well met! The coast road is the one past the mill.",
    "Ask Bram at the bakery, he knows everyone here.",
    "Take care on the bridge, it is slick in the morning.",
]
CONVERSATION = "conversations/person.jsonl"
CHUNK_MS = 40


def write_atomic(path, obj):
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def name_in_active(agent_dir):
    """Adds the reply conversation to active.json, keeping the conversations already there."""
    path = os.path.join(agent_dir, "active.json")
    try:
        with open(path) as f:
            active = json.load(f)
    except (OSError, ValueError):
        active = {}
    conversations = active.get("conversations")
    if not isinstance(conversations, list):
        single = active.get("conversation")
        conversations = [{"file": single, "speakers": active.get("speakers", [])}] if single else []
    if not any(isinstance(c, dict) and c.get("file") == CONVERSATION for c in conversations):
        conversations.append({"file": CONVERSATION})
        write_atomic(path, {"conversations": conversations})


def existing_lines(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if line.strip())
    except OSError:
        return 0


def speak(player, text):
    """The reply's sound as (rate, channels, 16-bit PCM bytes), spoken by `player say`.
    Raises RuntimeError saying why when it cannot be had."""
    tmp = tempfile.mkdtemp(prefix="answer_agent.")
    out = os.path.join(tmp, "reply.wav")
    try:
        try:
            subprocess.run([player, "say", "--text", text, "--out", out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        except OSError as e:
            raise RuntimeError(f"cannot run {player!r}: {e.strerror}") from e
        except subprocess.TimeoutExpired as e:
            raise RuntimeError(f"'{player} say' took over 60 s") from e
        except subprocess.CalledProcessError as e:
            why = (e.stderr or b"").decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"'{player} say' failed: {why[-1] if why else e}") from e
        try:
            with wave.open(out, "rb") as w:
                if w.getsampwidth() != 2 or w.getnchannels() not in (1, 2):
                    raise RuntimeError(f"'{player} say' wrote no 16-bit mono or stereo WAV")
                return w.getframerate(), w.getnchannels(), w.readframes(w.getnframes())
        except (OSError, EOFError, wave.Error) as e:
            raise RuntimeError(f"'{player} say' wrote no readable WAV ({e})") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def streaming_header(rate, channels):
    """16-bit PCM, sizes unknown (0xFFFFFFFF): core/src/speech/growing_wav.rs's header."""
    return (b"RIFF" + struct.pack("<I", 0xFFFFFFFF) + b"WAVEfmt "
            + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16)
            + b"data" + struct.pack("<I", 0xFFFFFFFF))


def stream(path, rate, channels, pcm, pace):
    """Writes the header, then CHUNK_MS of sound at a time at `pace` times real time, each
    flushed, then the end marker PATH.done."""
    step = max(1, rate * CHUNK_MS // 1000) * channels * 2
    start = time.monotonic()
    with open(path, "wb") as f:
        f.write(streaming_header(rate, channels))
        f.flush()
        for i, at in enumerate(range(0, len(pcm), step)):
            if pace > 0:
                time.sleep(max(0.0, start + i * CHUNK_MS / 1000 / pace - time.monotonic()))
            f.write(pcm[at:at + step])
            f.flush()
    open(path + ".done", "wb").close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent_dir")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--player", default="npc-player",
                        help="the npc-player that speaks the replies (default: npc-player on PATH)")
    parser.add_argument("--pace", type=float, default=1.0,
                        help="how many times real time the sound is written (0: at once)")
    args = parser.parse_args()
    os.makedirs(os.path.join(args.agent_dir, "conversations"), exist_ok=True)
    os.makedirs(os.path.join(args.agent_dir, "lines"), exist_ok=True)
    reply_path = os.path.join(args.agent_dir, CONVERSATION)
    heard_path = os.path.join(args.agent_dir, "heard.jsonl")
    seq = existing_lines(reply_path)
    offset, pending, answered = 0, b"", 0
    can_speak = True
    end = None if args.seconds is None else time.monotonic() + args.seconds
    while end is None or time.monotonic() < end:
        name_in_active(args.agent_dir)
        try:
            with open(heard_path, "rb") as f:
                f.seek(offset)
                chunk = f.read()
        except OSError:
            chunk = b""
        offset += len(chunk)
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            try:
                heard = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(heard, dict) or not isinstance(heard.get("to"), str):
                continue
            text = REPLIES[answered % len(REPLIES)]
            sound = None
            if can_speak:
                try:
                    sound = speak(args.player, text)
                except RuntimeError as e:
                    print(f"answer_agent: {e}; answering with text lines from now on "
                          "(the player synthesises them)", file=sys.stderr, flush=True)
                    can_speak = False
            audio = f"lines/person-{seq:04}.wav"
            line = {"seq": seq, "speaker_id": heard["to"], "text": text}
            if sound:
                line.update({"audio": audio, "stream": True})
                try:
                    os.remove(os.path.join(args.agent_dir, audio + ".done"))
                except FileNotFoundError:
                    pass
            line.update({"reply_to": heard.get("seq"), "written_unix_ms": int(time.time() * 1000)})
            with open(reply_path, "a") as f:
                f.write(json.dumps(line) + "\n")
                f.flush()
            print(f"heard {heard.get('text')!r} -> {heard['to']}: {text}", flush=True)
            if sound:
                stream(os.path.join(args.agent_dir, audio), *sound, args.pace)
            seq += 1
            answered += 1
        time.sleep(0.05)


if __name__ == "__main__":
    main()
