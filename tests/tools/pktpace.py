#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# pktpace.py DEV SIZE PPS SECONDS [FLOWS [SPORT]]: send frames of SIZE bytes
# on DEV from an AF_PACKET socket at PPS frames a second (in 1 ms rounds,
# the pace kept against the clock) for SECONDS, cycling over FLOWS IPv4/UDP
# flows (source ports SPORT.., default 1 flow, port 1000). The kernel picks
# a frame's TX queue from its flow hash, so flows spread over the queues.
# Prints the frames sent. Tests only, in their own network namespace.
import socket
import struct
import sys
import time

dev, size, pps, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
flows = int(sys.argv[5]) if len(sys.argv) > 5 else 1
sport = int(sys.argv[6]) if len(sys.argv) > 6 else 1000
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
eth = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
ip_len = max(size - 14, 28)
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0x4000, 64, 17, 0,
                 bytes([10, 255, 0, 1]), bytes([10, 255, 0, 2]))
frames = [eth + ip + struct.pack("!HHHH", sport + f, 9, ip_len - 20, 0) + bytes(ip_len - 28)
          for f in range(flows)]
t0 = time.monotonic()
sent = 0
while True:
    now = time.monotonic() - t0
    if now >= secs:
        break
    due = int(now * pps) + 1
    while sent < due:
        try:
            s.send(frames[sent % flows])
        except OSError:
            pass  # a full qdisc refuses (ENOBUFS): the frame is dropped, counted there
        sent += 1
    time.sleep(0.001)
print(sent)
