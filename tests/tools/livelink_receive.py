#!/usr/bin/env python3
"""A Live Link Face receiver made by others' code: pylivelinkface decodes what
npc-player --stream livelink://... sends.

    livelink_receive.py PORT SECONDS OUT.jsonl

Writes one JSON line per packet: the subject, the frame time (frame number, sub-frame, rate),
JawOpen and the head's yaw. Prints "listening" once the socket is bound.
"""

import json
import socket
import sys
import time

from pylivelinkface import FaceBlendShape, PyLiveLinkFace


def main():
    port, seconds, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.settimeout(0.1)
    print("listening", flush=True)
    end = time.monotonic() + seconds
    with open(out, "w") as f:
        while time.monotonic() < end:
            try:
                data, _ = s.recvfrom(65536)
            except socket.timeout:
                continue
            ok, face = PyLiveLinkFace.decode(data)
            f.write(json.dumps({
                "ok": ok,
                "subject": face.name,
                "frame": face._frames,
                "sub_frame": face._sub_frame,
                "fps": face.fps,
                "jaw": face.get_blendshape(FaceBlendShape.JawOpen),
                "head_yaw": face.get_blendshape(FaceBlendShape.HeadYaw),
            }) + "\n")


if __name__ == "__main__":
    main()
