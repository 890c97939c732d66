"""Tries the network: TCP to 127.0.0.1:PORT (a listener of the test's), TCP to a reserved
TEST-NET address that routes nowhere, a DNS lookup, a raw socket and IPv6."""

import socket
import sys

from _common import attempt, play_on


def tcp(host, port, family=socket.AF_INET):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        s.connect((host, port))
        return "connected"


attempt("tcp_loopback", lambda: tcp("127.0.0.1", int(sys.argv[1])))
attempt("tcp_unroutable", lambda: tcp("192.0.2.1", 80))
attempt("tcp6_loopback", lambda: tcp("::1", int(sys.argv[1]), socket.AF_INET6))
attempt("dns", lambda: socket.getaddrinfo("localhost.invalid", 80))
attempt("raw_socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("packet_socket", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
play_on()
