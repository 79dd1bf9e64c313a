#!/usr/bin/env python3
"""A Live Link Face sender made by others' code: pylivelinkface encodes frames as the iPhone
app sends them.

    livelink_send.py PORT FRAMES

Sends FRAMES frames of the subject "Phone" to 127.0.0.1:PORT at 60 a second, JawOpen rising
from 0 to (FRAMES-1)/FRAMES and HeadYaw 0.1 (18 degrees), one frame a 60th of a second apart.
"""

import socket
import sys
import time

from pylivelinkface import FaceBlendShape, PyLiveLinkFace


def main():
    port, frames = int(sys.argv[1]), int(sys.argv[2])
    face = PyLiveLinkFace(name="Phone", fps=60)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(frames):
        # Set directly: set_blendshape eases toward the value.
        face._blend_shapes[FaceBlendShape.JawOpen.value] = i / frames
        face._blend_shapes[FaceBlendShape.HeadYaw.value] = 0.1
        s.sendto(face.encode(), ("127.0.0.1", port))
        time.sleep(1 / 60)


if __name__ == "__main__":
    main()
