"""Security round 4, informational note 2: Python's `is_global` calls NAT64 (`64:ff9b::7f00:1`)
and 6to4 (`2002:7f00:1::`) addresses global although they reach 127.0.0.1; a scheduled import
refuses them (and IPv4-mapped and Teredo ones) by the IPv4 address they carry."""

from __future__ import annotations

import socket

import pytest

from catalog.services.import_sources import _refused_address


def _resolving_to(monkeypatch, address: str) -> None:
    def fake(host, port, *args, **kwargs):
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a9fe:a9fe",  # NAT64 of the metadata service 169.254.169.254
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:a00:1::1",  # 6to4 of 10.0.0.1
        "::ffff:127.0.0.1",  # IPv4-mapped
    ],
)
def test_an_ipv6_address_carrying_a_private_ipv4_is_refused(monkeypatch, address):
    _resolving_to(monkeypatch, address)
    assert _refused_address("mirror.example", 443) is not None


def test_a_public_ipv6_address_is_fetched(monkeypatch):
    _resolving_to(monkeypatch, "2606:4700:4700::1111")
    assert _refused_address("mirror.example", 443) is None
