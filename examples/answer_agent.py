#!/usr/bin/env python3
"""A small agent that answers the person in front of the player (standard library only).

It follows AGENT_DIR/heard.jsonl as `npc-player run --mic` / `--mic-file` writes it (protocol
1.1, docs/agent-protocol.md), and answers each utterance addressed to an NPC with the next of
a few scripted replies, spoken by that NPC in conversations/person.jsonl (named in
active.json beside whatever else plays). Utterances addressed to nobody get no answer.

    python3 examples/answer_agent.py AGENT_DIR [--seconds S]
"""

import argparse
import json
import os
import time

REPLIES = [
    "Well met! The coast road is the one past the mill.",
    "Ask Bram at the bakery, he knows everyone here.",
    "Take care on the bridge, it is slick in the morning.",
]
CONVERSATION = "conversations/person.jsonl"


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent_dir")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    args = parser.parse_args()
    os.makedirs(os.path.join(args.agent_dir, "conversations"), exist_ok=True)
    reply_path = os.path.join(args.agent_dir, CONVERSATION)
    heard_path = os.path.join(args.agent_dir, "heard.jsonl")
    seq = existing_lines(reply_path)
    offset, pending, answered = 0, b"", 0
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
            line = {
                "seq": seq,
                "speaker_id": heard["to"],
                "text": REPLIES[answered % len(REPLIES)],
                "reply_to": heard.get("seq"),
            }
            with open(reply_path, "a") as f:
                f.write(json.dumps(line) + "\n")
                f.flush()
            print(f"heard {heard.get('text')!r} -> {heard['to']}: {line['text']}", flush=True)
            seq += 1
            answered += 1
        time.sleep(0.05)


if __name__ == "__main__":
    main()
