#!/usr/bin/env python3
"""A VMC receiver made by others' code: python-osc decodes what npc-player --stream sends.

    vmc_receive.py BASE_PORT COUNT SECONDS OUT.jsonl

Listens on BASE_PORT..BASE_PORT+COUNT-1 (one avatar per port, as VMC receivers do) and writes
one JSON line per packet: the port, the /VMC/Ext/T time, JawOpen, the root, the bones' names
with their rotations, and how many blend values and which other addresses came.
Prints "listening" once the sockets are bound.
"""

import json
import select
import socket
import sys
import time

from pythonosc.osc_packet import OscPacket


# VRM 0.x presets, recorded by name when sent.
WATCHED = {"A", "I", "U", "E", "O", "Blink", "Blink_L", "Blink_R", "Joy"}


def main():
    base, count, seconds, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    sockets = []
    for port in range(base, base + count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", port))
        sockets.append(s)
    print("listening", flush=True)
    end = time.monotonic() + seconds
    with open(out, "w") as f:
        while time.monotonic() < end:
            ready, _, _ = select.select(sockets, [], [], 0.1)
            for s in ready:
                data, _ = s.recvfrom(65536)
                packet = {"port": s.getsockname()[1], "bones": {}, "blends": 0, "addresses": []}
                for timed in OscPacket(data).messages:
                    m = timed.message
                    packet["addresses"].append(m.address)
                    if m.address == "/VMC/Ext/T":
                        packet["t"] = m.params[0]
                    elif m.address == "/VMC/Ext/Root/Pos":
                        packet["root"] = m.params
                    elif m.address == "/VMC/Ext/Bone/Pos":
                        packet["bones"][m.params[0]] = m.params[1:]
                    elif m.address == "/VMC/Ext/Blend/Val":
                        packet["blends"] += 1
                        if m.params[0] == "JawOpen":
                            packet["jaw"] = m.params[1]
                        if m.params[0] in WATCHED:
                            packet.setdefault("watched", {})[m.params[0]] = m.params[1]
                f.write(json.dumps(packet) + "\n")


if __name__ == "__main__":
    main()
