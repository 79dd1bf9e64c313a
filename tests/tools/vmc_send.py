#!/usr/bin/env python3
"""A VMC sender made by others' code: python-osc builds the bundles as VSeeFace or Warudo
send them.

    vmc_send.py PORT FRAMES LOST_FROM LOST_TO

Sends FRAMES bundles to 127.0.0.1:PORT at 60 a second, each /VMC/Ext/OK (loaded, calibrated,
tracking), /VMC/Ext/T, the Head bone turned 18 degrees to the avatar's left (Unity's axes),
/VMC/Ext/Blend/Val JawOpen rising from 0 to (FRAMES-1)/FRAMES, Blink 0.5 and a VRM preset
"A", then /VMC/Ext/Blend/Apply. Frames LOST_FROM..LOST_TO (exclusive) say tracking is lost.
"""

import math
import socket
import sys
import time

from pythonosc.osc_bundle_builder import IMMEDIATELY, OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder


def message(address, *args):
    m = OscMessageBuilder(address=address)
    for a in args:
        m.add_arg(a)
    return m.build()


def main():
    port, frames, lost_from, lost_to = (int(a) for a in sys.argv[1:5])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # glTF's +Y turn of 18 degrees, sent in Unity's left-handed axes: y and z negated.
    half = math.radians(18) / 2
    qx, qy, qz, qw = 0.0, -math.sin(half), 0.0, math.cos(half)
    for i in range(frames):
        tracking = 0 if lost_from <= i < lost_to else 1
        b = OscBundleBuilder(IMMEDIATELY)
        b.add_content(message("/VMC/Ext/OK", 1, 3, 0, tracking))
        b.add_content(message("/VMC/Ext/T", i / 60))
        b.add_content(message("/VMC/Ext/Bone/Pos", "Head", 0.0, 0.1, 0.0, qx, qy, qz, qw))
        b.add_content(message("/VMC/Ext/Blend/Val", "JawOpen", i / frames))
        b.add_content(message("/VMC/Ext/Blend/Val", "Blink", 0.5))
        b.add_content(message("/VMC/Ext/Blend/Val", "A", 1.0))
        b.add_content(message("/VMC/Ext/Blend/Apply"))
        s.sendto(b.build().dgram, ("127.0.0.1", port))
        time.sleep(1 / 60)


if __name__ == "__main__":
    main()
