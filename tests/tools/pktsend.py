#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# pktsend.py DEV FLOWS PER_FLOW SIZE: send PER_FLOW frames of SIZE bytes for
# each of FLOWS IPv4/UDP flows (source ports 1000..) on DEV, from an
# AF_PACKET socket (no address needed). The kernel picks each frame's TX
# queue from its flow hash (skb_tx_hash), so many flows spread over the
# queues. A frame the qdisc drops (ENOBUFS) counts as sent: the qdisc
# counted the drop. Tests only, in their own network namespace.
import errno
import socket
import struct
import sys

dev, flows, per_flow, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
eth = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
ip_len = max(size - 14, 28)
for f in range(flows):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0x4000, 64, 17, 0,
                     bytes([10, 255, 0, 1]), bytes([10, 255, 0, 2]))
    udp = struct.pack("!HHHH", 1000 + f, 9, ip_len - 20, 0)
    frame = eth + ip + udp + bytes(ip_len - 28)
    for _ in range(per_flow):
        try:
            s.send(frame)
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
