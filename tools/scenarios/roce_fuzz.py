#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Forge RoCEv2 frames at the live QPs of a device across a link.

    roce_fuzz.py [--seed N] [--ipv6 SRC,DST] [--counters DIR] [--netns NAME]
                 IFACE FAMILY...
    roce_fuzz.py list

Runs on the peer's side of the link (IFACE: the peer's interface, in
network namespace NAME if given; the device's counters are read where the
program starts), as an attacker on the same link would: it listens to the
traffic that leaves IFACE for the device under attack, learns from it what a
forged frame needs to get deep into the receive path (addresses, the QP
numbers of live QPs, their PSNs, an rkey and address from a RETH, the Q_Key
of a UD QP), then sends each family of forged frames in turn through an
AF_PACKET socket on IFACE, learning its targets again before each. The frames carry the peer's own addresses, so that they
pass the checks a connected QP makes on its peer; unless a family is about
the ICRC, their ICRC is right. Frames over IPv6 go from SRC to DST (the
peer's and the device's IPv6 addresses), IPv6 families need --ipv6.

Families (FAMILY, or "list" to print them):
  icrc       every opcode with a wrong ICRC, over IPv4 and IPv6
  truncated  every opcode cut short at every length below its headers
  header     bad transport version, P_Key, pad, opcodes that do not
             exist
  source     opcodes of another transport at an RC QP, IPv4 options, an
             RC request over IPv6 from an address that is not its peer
  qpn        QP numbers that exist nowhere, the multicast QPN on RC
  lengths    IP and UDP lengths that disagree with the frame
  psn        requests at PSNs outside the window, and duplicates
  reth       WRITE and READ requests with wrong keys, wrapping addresses,
             lengths of 0, 2^31 and 2^32-1, payloads past the path MTU
  atomic     unaligned atomics, ATOMIC_WRITEs and FLUSHes, wrong keys, at
             and past the MR's end
  acks       ACKs, NAKs of every syndrome, read responses and atomic ACKs
             with random MSNs at PSNs in and out of the window
  ud         datagrams with the wrong Q_Key, longer than the MTU, with
             connected opcodes, over IPv4 and IPv6
  random     SEED-driven random frames: random opcode, header bytes and
             length, mostly with a right ICRC (bounded in count and time)

A forged request never carries a right key with an address inside the
MR: that is a request the device must serve (RoCE has no authentication),
and the traffic under attack checks its data.

Prints what it learned for each family, then lines
"expect FAMILY COUNTER OP N GREW": the device's counter COUNTER (read from
DIR, its hw_counters directory) must have grown by exactly (OP "==") or at
least (OP ">=") N during the family, and grew by GREW. A family that learns
no target within the listening time prints "missing FAMILY WHAT". Exits 0
when every family was sent, 1 otherwise, 2 on bad usage.
"""
import argparse
import ctypes
import ipaddress
import os
import random
import socket
import struct
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce_icrc import icrc  # noqa: E402

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
ROCEV2_PORT = 4791
LISTEN_SECONDS = 20
RANDOM_FRAMES = 2000
RANDOM_SECONDS = 10
RETH_SECONDS = 10
PKEY_DEFAULT = 0xFFFF
MULTICAST_QPN = 0xFFFFFF

# opcode -> its headers after the BTH, in order (IBTA 9.2)
HEADER_BYTES = {"FETH": 4, "RETH": 16, "AETH": 4, "ATOMETH": 28,
                "ATOMACK": 8, "DETH": 8, "IMM": 4, "IETH": 4}
RC_OPS = {
    0x00: (), 0x01: (), 0x02: (), 0x03: ("IMM",), 0x04: (), 0x05: ("IMM",),
    0x06: ("RETH",), 0x07: (), 0x08: (), 0x09: ("IMM",), 0x0A: ("RETH",),
    0x0B: ("RETH", "IMM"), 0x0C: ("RETH",), 0x0D: ("AETH",), 0x0E: (),
    0x0F: ("AETH",), 0x10: ("AETH",), 0x11: ("AETH",),
    0x12: ("AETH", "ATOMACK"), 0x13: ("ATOMETH",), 0x14: ("ATOMETH",),
    0x16: ("IETH",), 0x17: ("IETH",), 0x1C: ("FETH", "RETH"),
    0x1D: ("RETH",),
}
UC_OPS = {0x20 | op: RC_OPS[op] for op in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                           0x0A, 0x0B)}
UD_OPS = {0x64: ("DETH",), 0x65: ("DETH", "IMM")}
OPS = {**RC_OPS, **UC_OPS, **UD_OPS}
# opcodes that carry no payload
NO_PAYLOAD = {0x0C, 0x11, 0x12, 0x13, 0x14, 0x1C}
RC_REQUESTS = {op for op in RC_OPS
               if op <= 0x0C or op in (0x13, 0x14, 0x16, 0x17, 0x1C, 0x1D)}
RC_RESPONSES = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
READ_REQUEST, READ_RESP_ONLY, ACK, ATOMIC_ACK = 0x0C, 0x10, 0x11, 0x12
WRITE_FIRST, WRITE_ONLY, COMPARE_SWAP, FETCH_ADD = 0x06, 0x0A, 0x13, 0x14
FLUSH, ATOMIC_WRITE = 0x1C, 0x1D
SEND_ONLY, UD_SEND_ONLY, UC_SEND_ONLY = 0x04, 0x64, 0x24


def psn_add(psn, n):
    return (psn + n) & 0xFFFFFF


def bth(opcode, dqpn, psn, pad=0, tver=0, pkey=PKEY_DEFAULT):
    return struct.pack("!BBHII", opcode, (pad << 4) | tver, pkey,
                       dqpn & 0xFFFFFF, psn & 0xFFFFFF)


def reth(va, rkey, length):
    return struct.pack("!QII", va & (2**64 - 1), rkey, length & 0xFFFFFFFF)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def atometh(va, rkey, swap_add=1, compare=0):
    return struct.pack("!QIQQ", va & (2**64 - 1), rkey, swap_add, compare)


def deth(qkey, sqpn):
    return struct.pack("!II", qkey, sqpn & 0xFFFFFF)


def ext_headers(opcode, t, rng):
    """Plausible extension headers for @opcode aimed at target @t."""
    out = b""
    for h in OPS.get(opcode, ()):
        if h == "RETH":
            out += reth(t.get("va", 0), t.get("rkey", 0), t.get("len", 64))
        elif h == "AETH":
            out += aeth(0, rng.randrange(1 << 24))
        elif h == "ATOMETH":
            out += atometh(t.get("va", 0), t.get("rkey", 0))
        elif h == "DETH":
            out += deth(t.get("qkey", 0), 0x42)
        elif h == "FETH":
            # placement type global, selectivity range or MR
            out += struct.pack("!I", 1 | rng.randrange(2) << 4)
        else:
            out += rng.randbytes(HEADER_BYTES[h])
    return out


class Link:
    """The frames of one direction of the link: the peer's addresses and
    the device's, learned from the traffic by a thread that listens all
    along (the socket does not see the frames it sends itself)."""

    def __init__(self, iface):
        self.iface = iface
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(ETH_P_ALL))
        self.sock.bind((iface, 0))
        self.sent = 0
        self.targets = {}
        self.v6_src = self.v6_dst = None
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self):
        while True:
            frame, addr = self.sock.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                self._note(frame)

    def learn(self, wanted, since, seconds=LISTEN_SECONDS):
        """Wait until a target of every kind in @wanted was seen after
        time @since (time.monotonic()): "rc_req" (a request to an RC QP of
        the device), "rc_comp" (a response to one), "ud", "reth"."""
        deadline = time.monotonic() + seconds
        while any(self.targets.get(k, {}).get("seen", -1) < since
                  for k in wanted):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def relearn(self, kind, seconds):
        """Wait up to @seconds for a target of @kind newer than the one
        known (the QP under attack may have been replaced)."""
        self.learn({kind}, time.monotonic(), seconds)

    def _note(self, frame):
        if len(frame) < 14 + 20 + 8 + 12:
            return
        # targets are learned over IPv4; IPv6 frames use --ipv6's addresses
        if struct.unpack("!H", frame[12:14])[0] != ETH_P_IP or \
                frame[14 + 9] != 17:
            return
        ip_src, ip_dst = frame[26:30], frame[30:34]
        udp = 14 + (frame[14] & 0x0F) * 4
        sport, dport = struct.unpack("!HH", frame[udp:udp + 4])
        if dport != ROCEV2_PORT or len(frame) < udp + 8 + 12:
            return
        b = frame[udp + 8:]
        opcode = b[0]
        dqpn = struct.unpack("!I", b[4:8])[0] & 0xFFFFFF
        psn = struct.unpack("!I", b[8:12])[0] & 0xFFFFFF
        t = {"mac_dst": frame[0:6], "mac_src": frame[6:12],
             "ip_src": ip_src, "ip_dst": ip_dst, "sport": sport,
             "dqpn": dqpn, "psn": psn,
             "seen": time.monotonic()}
        if opcode in RC_REQUESTS:
            self.targets["rc_req"] = t
            if "RETH" in OPS[opcode] and len(b) >= 28:
                va, rkey, length = struct.unpack("!QII", b[12:28])
                self.targets["reth"] = dict(t, va=va, rkey=rkey, len=length)
        elif opcode in RC_RESPONSES:
            self.targets["rc_comp"] = t
        elif opcode in UD_OPS and len(b) >= 20:
            self.targets["ud"] = dict(t, qkey=struct.unpack("!I", b[12:16])[0])

    def frame(self, t, payload, ipv6=False, icrc_xor=0, ip_len_delta=0,
              udp_len_delta=0, ip_options=b""):
        """An Ethernet frame to target @t with UDP payload @payload (BTH
        onwards, without the ICRC), its ICRC appended (XORed with
        @icrc_xor); the length fields may be made to lie."""
        udp_len = 8 + len(payload) + 4
        udp = struct.pack("!HHHH", t["sport"], ROCEV2_PORT,
                          (udp_len + udp_len_delta) & 0xFFFF, 0)
        if ipv6:
            ip = struct.pack("!IHBB", 0x60000000,
                             (udp_len + ip_len_delta) & 0xFFFF, 17, 64) + \
                self.v6_src + self.v6_dst
            ethertype = ETH_P_IPV6
        else:
            ihl = 5 + len(ip_options) // 4
            ip = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0,
                             (ihl * 4 + udp_len + ip_len_delta) & 0xFFFF, 0,
                             0x4000, 64, 17, 0, t["ip_src"], t["ip_dst"]) + \
                ip_options
            csum = inet_checksum(ip)
            ip = ip[:10] + struct.pack("!H", csum) + ip[12:]
            ethertype = ETH_P_IP
        if len(payload) >= 12:
            crc = icrc(ip, udp, payload + b"\0" * 4) ^ icrc_xor
        else:   # no whole BTH to mask: any value will do
            crc = zlib.crc32(payload)
        return t["mac_dst"] + t["mac_src"] + struct.pack("!H", ethertype) + \
            ip + udp + payload + struct.pack("<I", crc)

    def send(self, frame):
        self.sock.send(frame)
        self.sent += 1
        # let the receiving softirq keep up: a full backlog drops frames
        if self.sent % 32 == 0:
            time.sleep(0.002)


def inet_checksum(data):
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def request(op, t, psn, rng, payload=b""):
    """BTH, extension headers and payload of a request to @t."""
    pad = (-len(payload)) % 4
    return bth(op, t["dqpn"], psn, pad=pad) + ext_headers(op, t, rng) + \
        payload + b"\0" * pad


class Expect:
    """What a family expects of the device's counters"""

    def __init__(self):
        self.rows = {}

    def add(self, counter, n=1, exact=True):
        op, m = self.rows.get(counter, ("==", 0))
        self.rows[counter] = ("==" if exact and op == "==" else ">=", m + n)


def read_counters(path, names=None):
    if not path:
        return {}
    return {name: int(open(os.path.join(path, name)).read())
            for name in (os.listdir(path) if names is None else names)}


def family_icrc(link, rng, exp):
    t = link.targets["rc_req"]
    for ipv6 in (False, True):
        for op in sorted(OPS):
            payload = b"" if op in NO_PAYLOAD else b"\xab" * 64
            link.send(link.frame(t, request(op, t, t["psn"], rng, payload),
                                 ipv6=ipv6, icrc_xor=1 << rng.randrange(32)))
            exp.add("drop_bad_icrc")


def family_truncated(link, rng, exp):
    t = link.targets["rc_req"]
    for op in sorted(OPS):
        whole = request(op, t, t["psn"], rng)
        for cut in range(0, len(whole)):
            frame = link.frame(t, whole[:cut])
            # shorter than a BTH and an ICRC: the ICRC bytes are the BTH's
            link.send(frame)
            exp.add("drop_bad_header")


def family_header(link, rng, exp):
    t = link.targets["rc_req"]
    base = request(SEND_ONLY, t, t["psn"], rng, b"\x5a" * 16)
    cases = []
    for tver in range(1, 16):
        cases.append(bth(SEND_ONLY, t["dqpn"], t["psn"], tver=tver) + base[12:])
    for pkey in (0x0000, 0x7FFE, 0x8001, 0x1234):
        cases.append(bth(SEND_ONLY, t["dqpn"], t["psn"], pkey=pkey) + base[12:])
    for op in range(256):
        if op not in OPS:
            cases.append(bth(op, t["dqpn"], t["psn"]) + b"\0" * 32)
    for op in sorted(NO_PAYLOAD):
        for pad in (1, 3):
            cases.append(request(op, t, t["psn"], rng) + b"\0" * 4)
            cases[-1] = bytes([cases[-1][0], pad << 4]) + cases[-1][2:]
    # a pad longer than the payload
    cases.append(bth(SEND_ONLY, t["dqpn"], t["psn"], pad=3) + b"\0" * 2)
    for c in cases:
        link.send(link.frame(t, c))
        exp.add("drop_bad_header")


def family_source(link, rng, exp):
    """Frames that only the QP can refuse: sent at once, while the QP that
    was just seen lives."""
    t = link.targets["rc_req"]
    base = request(SEND_ONLY, t, t["psn"], rng, b"\x5a" * 16)
    # UC and UD opcodes at an RC QP: the transport is the QP's
    for op in (UC_SEND_ONLY, UD_SEND_ONLY):
        link.send(link.frame(t, bth(op, t["dqpn"], t["psn"]) +
                             ext_headers(op, t, rng) + b"\0" * 8))
        exp.add("drop_bad_header")
    # IPv4 options (NOPs): RoCEv2 has none
    for n in (1, 2, 10):
        link.send(link.frame(t, base, ip_options=b"\x01" * 4 * n))
        exp.add("drop_bad_header")
    # an RC request from another address (IPv6): not the QP's peer
    if link.v6_dst:
        link.send(link.frame(t, base, ipv6=True))
        exp.add("drop_bad_header")


def family_qpn(link, rng, exp):
    t = link.targets["rc_req"]
    for qpn in [0, 0x3FFFF, 0xFFFFFE] + [rng.randrange(0x10000, 0xFFFFFE)
                                        for _ in range(40)]:
        if qpn == t["dqpn"]:
            continue
        link.send(link.frame(t, request(SEND_ONLY, dict(t, dqpn=qpn),
                                        t["psn"], rng, b"\0" * 8)))
        exp.add("drop_no_qp", exact=False)
    # the multicast QPN with an RC opcode: no QP has that number
    link.send(link.frame(t, request(SEND_ONLY, dict(t, dqpn=MULTICAST_QPN),
                                    t["psn"], rng, b"\0" * 8)))
    exp.add("drop_no_qp", exact=False)


def family_lengths(link, rng, exp):
    """The IP and UDP layers drop these, or trim them so that srdma sees
    a shorter packet whose ICRC is then wrong: nothing is placed."""
    t = link.targets["rc_req"]
    body = request(SEND_ONLY, t, t["psn"], rng, b"\x77" * 64)
    for d in (-60, -8, -1):
        link.send(link.frame(t, body, udp_len_delta=d))
        exp.add("drop_bad_icrc")
    for d in (1, 8, 1000):
        link.send(link.frame(t, body, udp_len_delta=d))
    for d in (1, 8, 1000, -1, -30):
        link.send(link.frame(t, body, ip_len_delta=d))
    if link.v6_dst:
        for d in (1, 8, -1, -30):
            link.send(link.frame(t, body, ipv6=True, ip_len_delta=d))


def wrong_key(t):
    """@t's key with its index kept and its key byte changed"""
    return dict(t, rkey=t.get("rkey", 0) ^ 0x5A)


def family_psn(link, rng, exp):
    t = link.targets["rc_req"]
    r = wrong_key(link.targets.get("reth", t))
    # ahead of the window, 2^23 away (as far behind as ahead), behind it
    for d in (100, 5000, 1 << 22, (1 << 23) - 1, 1 << 23, (1 << 23) + 1,
              (1 << 24) - 1):
        for op in (SEND_ONLY, WRITE_ONLY, READ_REQUEST, FETCH_ADD):
            payload = b"" if op in NO_PAYLOAD else b"\x11" * 16
            link.send(link.frame(t, request(op, dict(r, len=16),
                                            psn_add(t["psn"], d), rng,
                                            payload)))
    # duplicates of what was just sent, forged: older PSNs, the right key
    # for a READ (which a duplicate answers again) but not its address
    r = link.targets.get("reth", t)
    for back in range(1, 9):
        for op in (SEND_ONLY, WRITE_ONLY, READ_REQUEST):
            payload = b"" if op in NO_PAYLOAD else b"\x22" * 16
            forged = wrong_key(r) if op == WRITE_ONLY else \
                dict(r, va=r.get("va", 0) + 8)
            link.send(link.frame(t, request(op, forged,
                                            psn_add(t["psn"], -back), rng,
                                            payload)))


def family_reth(link, rng, exp):
    """Each case at the PSNs around the last request seen: one of them is
    usually the one the responder expects next. A case that fails the QP
    leaves the others to a dead QP: the next case learns the QP that the
    traffic under attack connects next."""
    mtu_payload = 1024
    deadline = time.monotonic() + RETH_SECONDS
    # (key XOR, address, length); an address below 2^63 is relative to the
    # RETH seen, the others are absolute. The MR's bounds are not
    # on the wire: with the right key, only addresses and lengths outside
    # any MR of the traffic under attack (see the top)
    cases = [
        (0x5A, 0, 64), (0x100, 0, 64), (None, 0, 64), (0xFFFFFFFF, 0, 64),
        (0, 2**64 - 8, 64), (0, 2**64 - 1, 2), (0, 0, 0), (0, 0, 2**31),
        (0, 0, 2**32 - 1), (0, 0, 2**31 + 1), (0, 2**63, 64),
        (0, 1 << 40, 64), (0, 2**64 - (1 << 40), 2**32 - 1),
    ]
    for key_xor, where, n in cases:
        r = link.targets["reth"]
        a = where if where >= 2**63 else r["va"] + where
        k = 0 if key_xor is None else r["rkey"] ^ key_xor
        for op in (WRITE_ONLY, WRITE_FIRST, READ_REQUEST):
            payload = b"" if op == READ_REQUEST else \
                b"\x33" * (mtu_payload if op == WRITE_FIRST else min(n, 64))
            for d in (-1, 0, 1):
                body = request(op, dict(r, va=a, rkey=k, len=n),
                               psn_add(r["psn"], d), rng, payload)
                link.send(link.frame(r, body))
        if time.monotonic() < deadline:
            link.relearn("reth", 0.5)
    # payloads past the path MTU, and a WRITE_ONLY longer than its RETH
    r = wrong_key(link.targets["reth"])
    for n in (mtu_payload + 4, 1400):
        body = request(WRITE_ONLY, dict(r, len=n), psn_add(r["psn"], 1),
                       rng, b"\x44" * n)
        link.send(link.frame(r, body))
    r = link.targets["reth"]
    body = request(WRITE_ONLY, dict(r, va=r["va"] + r["len"] - 8, len=8),
                   psn_add(r["psn"], 1), rng, b"\x44" * 64)
    link.send(link.frame(r, body))


def family_atomic(link, rng, exp):
    r = link.targets["reth"]
    va, rkey, length = r["va"], r["rkey"], r["len"]
    # the traffic under attack grants no atomic or FLUSH access, and each
    # address or key is wrong for an ATOMIC_WRITE (which needs
    # REMOTE_WRITE): each is refused
    for k, a in ((rkey, va + 1), (rkey, va + 4), (rkey, va + length - 4),
                 (rkey, va + length), (rkey ^ 0x5A, va), (rkey, 2**64 - 8),
                 (rkey, 2**64 - 4), (0, 0)):
        for op in (COMPARE_SWAP, FETCH_ADD, ATOMIC_WRITE, FLUSH):
            payload = b"\x66" * 8 if op == ATOMIC_WRITE else b""
            for d in (-1, 0, 1):
                body = request(op, dict(r, va=a, rkey=k, len=8),
                               psn_add(r["psn"], d), rng, payload)
                link.send(link.frame(r, body))


def family_acks(link, rng, exp):
    t = link.targets["rc_comp"]
    # far outside anything sent, first (the QP is alive: it just sent):
    # dropped as answering nothing
    for op in (ACK, READ_RESP_ONLY, ATOMIC_ACK, 0x0D, 0x0E, 0x0F):
        for d in (1 << 22, (1 << 23) - 1, 5000):
            payload = b"" if op in NO_PAYLOAD else b"\x55" * 32
            pad = (-len(payload)) % 4
            body = bth(op, t["dqpn"], psn_add(t["psn"], d), pad=pad) + \
                ext_headers(op, t, rng) + payload + b"\0" * pad
            link.send(link.frame(t, body))
            exp.add("drop_unsolicited", exact=False)
    # every syndrome: ACK, RNR NAK (every timer), NAK (every code,
    # reserved ones too), reserved types; random MSNs
    syndromes = list(range(0, 32)) + [0x20 | i for i in range(32)] + \
        [0x60 | i for i in range(32)] + [0x40, 0x41, 0x80, 0xA0, 0xFF]
    for s in syndromes:
        for d in (-(1 << 23), -1, 0, 1, 1 << 22):
            body = bth(ACK, t["dqpn"], psn_add(t["psn"], d)) + \
                aeth(s, rng.randrange(1 << 24))
            link.send(link.frame(t, body))


def family_ud(link, rng, exp):
    t = link.targets["ud"]
    for ipv6 in (False, True) if link.v6_dst else (False,):
        for qkey in (t["qkey"] ^ 1, 0, 0x80000000 ^ t["qkey"], 0xFFFFFFFF):
            if qkey == t["qkey"]:
                continue
            body = bth(UD_SEND_ONLY, t["dqpn"], rng.randrange(1 << 24)) + \
                deth(qkey, 0x42) + b"\x66" * 64
            link.send(link.frame(t, body, ipv6=ipv6))
            exp.add("drop_bad_qkey")
    # longer than the port's MTU (1024 on a 1500-byte link)
    for n in (1028, 1400):
        body = bth(UD_SEND_ONLY, t["dqpn"], 0) + deth(t["qkey"], 0x42) + \
            b"\x66" * n
        link.send(link.frame(t, body))
        exp.add("drop_too_long")
    # connected opcodes at a UD QP
    for op in (SEND_ONLY, UC_SEND_ONLY, WRITE_ONLY, ACK):
        body = bth(op, t["dqpn"], 0) + ext_headers(op, t, rng) + b"\0" * 8
        link.send(link.frame(t, body))
        exp.add("drop_bad_header")


def family_random(link, rng, exp):
    """Random opcodes (mostly known ones), headers with bytes changed,
    random payload lengths, some cut short, some over IPv6, some with a
    wrong ICRC; never a right key (see the top)."""
    targets = [link.targets[k] for k in ("rc_req", "rc_comp", "reth", "ud")
               if k in link.targets]
    deadline = time.monotonic() + RANDOM_SECONDS
    for _ in range(RANDOM_FRAMES):
        if time.monotonic() > deadline:
            break
        t = wrong_key(rng.choice(targets))
        op = rng.choice(sorted(OPS)) if rng.random() < 0.8 else \
            rng.randrange(256)
        psn = psn_add(t["psn"], rng.randrange(-16, 17))
        body = bytearray(bth(op, t["dqpn"], psn) + ext_headers(op, t, rng) +
                         rng.randbytes(rng.choice((0, 4, 64, 1100))))
        for _ in range(rng.randrange(4)):
            body[rng.randrange(1, len(body))] = rng.randrange(256)
        if rng.random() < 0.2:
            body = body[:rng.randrange(len(body) + 1)]
        link.send(link.frame(t, bytes(body),
                             ipv6=link.v6_dst is not None and rng.random() < 0.1,
                             icrc_xor=1 if rng.random() < 0.1 else 0))


# family: (function, targets it needs, how recent they must be in
# seconds: 0 for a frame sent the moment one was seen, while its QP lives)
FAMILIES = {
    "icrc": (family_icrc, {"rc_req"}, 2),
    "truncated": (family_truncated, {"rc_req"}, 2),
    "header": (family_header, {"rc_req"}, 2),
    "source": (family_source, {"rc_req"}, 0),
    "qpn": (family_qpn, {"rc_req"}, 2),
    "lengths": (family_lengths, {"rc_req"}, 2),
    "psn": (family_psn, {"rc_req"}, 2),
    "reth": (family_reth, {"reth"}, 2),
    "atomic": (family_atomic, {"reth"}, 2),
    "acks": (family_acks, {"rc_comp"}, 0),
    "ud": (family_ud, {"ud"}, 2),
    "random": (family_random, {"rc_req"}, 2),
}


def short(exp, before, after):
    """The counters of @exp that grew by less than it says"""
    return [c for c, (op, n) in exp.rows.items()
            if after.get(c, 0) - before.get(c, 0) < n]


def settled(exp, before, counters_dir, limit=1.0, quiet=0.15):
    """The counters once the family's frames were handled: each counter of
    @exp grew as it says and none of them moved for @quiet s (frames an
    engine queued are handled by then), or @limit s passed"""
    if not counters_dir:
        time.sleep(0.5)
        return {}
    deadline = time.monotonic() + limit
    last = since = None
    while True:
        now = read_counters(counters_dir, exp.rows)
        t = time.monotonic()
        if now != last:
            last, since = now, t
        elif t - since >= quiet and not short(exp, before, now):
            return now
        if t > deadline:
            return now
        time.sleep(0.03)


def run_family(link, name, seed, counters_dir, tries=4):
    fn, wanted, fresh = FAMILIES[name]
    # the QPs under attack come and go
    if not link.learn(wanted, time.monotonic() - fresh):
        print("missing %s %s" % (name, ",".join(sorted(wanted - link.targets.keys()))))
        return False
    used = {k: link.targets[k] for k in wanted}
    for k in sorted(wanted):
        t = used[k]
        print("# %s: %s: qpn %#x psn %#x%s" % (
            name, k, t["dqpn"], t["psn"],
            " rkey %#x va %#x len %d" % (t["rkey"], t["va"], t["len"])
            if "rkey" in t else ""))
    exp = Expect()
    before = read_counters(counters_dir)
    start, sent = time.monotonic(), link.sent
    fn(link, random.Random(seed), exp)
    print("# %s: %d frames in %.1f s (seed %d)" %
          (name, link.sent - sent, time.monotonic() - start, seed))
    after = settled(exp, before, counters_dir)
    # a family whose frames only a live QP counts as it says, with fewer
    # counted: the QP may have gone meanwhile (a victim ending its run) and
    # its frames counted as for no QP or for its state; again, anew (the
    # last try's counts are the verdict)
    missing = short(exp, before, after)
    if fresh == 0 and tries > 1 and missing:
        print("# %s: %s short: the QP under attack may have gone meanwhile: again" %
              (name, ",".join(sorted(missing))))
        return run_family(link, name, seed, counters_dir, tries - 1)
    for counter, (op, n) in sorted(exp.rows.items()):
        print("expect %s %s %s %d %d" % (name, counter, op, n,
                                         after.get(counter, 0) -
                                         before.get(counter, 0)))
    sys.stdout.flush()
    return True


def enter_netns(name):
    """Move this process into network namespace @name (ip netns)."""
    clone_newnet = 0x40000000
    libc = ctypes.CDLL(None, use_errno=True)
    with open(os.path.join("/run/netns", name)) as f:
        if libc.setns(f.fileno(), clone_newnet):
            raise OSError(ctypes.get_errno(), "setns " + name)


def main():
    if sys.argv[1:] == ["list"]:
        print(" ".join(FAMILIES))
        return 0
    ap = argparse.ArgumentParser(description="Forge RoCEv2 frames.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ipv6", help="SRC,DST: IPv6 addresses of the frames")
    ap.add_argument("--counters", help="the device's hw_counters directory")
    ap.add_argument("--netns", help="the network namespace of IFACE")
    ap.add_argument("iface")
    ap.add_argument("families", nargs="+", choices=FAMILIES, metavar="family")
    a = ap.parse_args()
    if a.netns:
        enter_netns(a.netns)
    link = Link(a.iface)
    if a.ipv6:
        src, dst = a.ipv6.split(",")
        link.v6_src = ipaddress.IPv6Address(src).packed
        link.v6_dst = ipaddress.IPv6Address(dst).packed
    ok = True
    for name in a.families:
        ok = run_family(link, name, a.seed, a.counters) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
