#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Check the invariant CRC (ICRC) of every RoCEv2 packet in a pcap file.

    roce_icrc.py CAPTURE.pcap

Wireshark 4.0 (Debian 12's tshark) shows a packet's ICRC as the field
infiniband.invariant.crc but does not check it: it has no preference, status
field or expert item for it. This program computes the ICRC as IBTA Annex A17
(RoCEv2) defines it and compares it with the packet's.

The ICRC is the Ethernet CRC-32 over: 8 bytes of 0xff standing for the LRH
that RoCEv2 does not have, the IP header with the fields that routers change
set to ones (IPv4: DSCP/ECN, TTL and header checksum; IPv6: traffic class,
flow label and hop limit), the UDP header with its checksum set to ones, the
BTH with its reserved byte after the P_Key set to ones, and the rest of the
packet up to the ICRC, which follows in little-endian byte order.

Prints one line per RoCEv2 packet (UDP destination port 4791),
"FRAME ok|BAD ON_THE_WIRE COMPUTED", the ICRCs as tshark shows the field
infiniband.invariant.crc (the four bytes in network order), then a summary
line. Exits 0 if there was at least one RoCEv2 packet and all
ICRCs were correct, 1 otherwise, 2 if the file cannot be read.
"""
import struct
import sys
import zlib

ROCEV2_PORT = 4791
LINKTYPE_ETHERNET = 1
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
IPPROTO_UDP = 17
BTH_LEN = 12
ICRC_LEN = 4


def frames(path):
    """Yield (number, link type, bytes) for each frame of a pcap file."""
    with open(path, "rb") as f:
        header = f.read(24)
        if len(header) < 24:
            raise ValueError("not a pcap file (short header)")
        magic = struct.unpack("<I", header[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            endian = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            endian = ">"
        else:
            raise ValueError("not a pcap file (magic 0x%08x)" % magic)
        linktype = struct.unpack(endian + "I", header[20:24])[0] & 0x0FFFFFFF
        number = 0
        while True:
            record = f.read(16)
            if len(record) < 16:
                return
            caplen = struct.unpack(endian + "I", record[8:12])[0]
            data = f.read(caplen)
            if len(data) < caplen:
                return
            number += 1
            yield number, linktype, data


def roce_packet(linktype, frame):
    """Split a frame into (IP header, UDP header, UDP payload), or None
    if it is not RoCEv2 over UDP port 4791."""
    if linktype != LINKTYPE_ETHERNET or len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    packet = frame[14:]
    if ethertype == ETH_P_IP and len(packet) >= 20:
        ihl = (packet[0] & 0x0F) * 4
        if packet[9] != IPPROTO_UDP or len(packet) < ihl + 8:
            return None
        ip_header, udp = packet[:ihl], packet[ihl:]
    elif ethertype == ETH_P_IPV6 and len(packet) >= 48:
        if packet[6] != IPPROTO_UDP:  # no extension headers on RoCEv2
            return None
        ip_header, udp = packet[:40], packet[40:]
    else:
        return None
    dport, udp_len = struct.unpack("!HH", udp[2:6])
    if dport != ROCEV2_PORT:
        return None
    # the UDP length, not the frame, bounds the packet (Ethernet padding)
    if udp_len < 8 + BTH_LEN + ICRC_LEN or udp_len > len(udp):
        return None
    return ip_header, udp[:8], udp[8:udp_len]


def icrc(ip_header, udp_header, payload):
    """The ICRC of a RoCEv2 packet whose UDP payload (BTH onwards, ICRC
    included) is payload."""
    ip = bytearray(ip_header)
    if ip[0] >> 4 == 4:
        ip[1] = 0xFF                    # DSCP and ECN
        ip[8] = 0xFF                    # TTL
        ip[10:12] = b"\xff\xff"         # header checksum
    else:
        ip[0] |= 0x0F                   # traffic class, high nibble
        ip[1:4] = b"\xff\xff\xff"       # traffic class low nibble, flow label
        ip[7] = 0xFF                    # hop limit
    udp = bytearray(udp_header)
    udp[6:8] = b"\xff\xff"              # checksum
    bth = bytearray(payload[:BTH_LEN])
    bth[4] = 0xFF                       # reserved byte before the dest QP
    masked = b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + \
        payload[BTH_LEN:-ICRC_LEN]
    return zlib.crc32(masked) & 0xFFFFFFFF


def main(argv):
    if len(argv) != 2:
        print("usage: roce_icrc.py CAPTURE.pcap", file=sys.stderr)
        return 2
    good = bad = 0
    try:
        for number, linktype, frame in frames(argv[1]):
            parts = roce_packet(linktype, frame)
            if parts is None:
                continue
            computed = struct.pack("<I", icrc(*parts))
            on_wire = parts[2][-ICRC_LEN:]
            ok = computed == on_wire
            # both as tshark shows infiniband.invariant.crc: the four
            # bytes read in network order
            print("%d %s 0x%s 0x%s" % (number, "ok" if ok else "BAD",
                                       on_wire.hex(), computed.hex()))
            if ok:
                good += 1
            else:
                bad += 1
    except (OSError, ValueError) as err:
        print("roce_icrc.py: %s: %s" % (argv[1], err), file=sys.stderr)
        return 2
    print("# %d RoCEv2 packets: %d ICRC correct, %d bad" %
          (good + bad, good, bad))
    return 0 if good > 0 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
