"""CRC-32C: known answers, piecewise computation, every buffer type, every library."""

import mmap

import crcmod.predefined
import pytest

from protocol.crc32c import FALLBACK_CHAIN, IMPLEMENTATION, crc32c

# RFC 3720 (iSCSI), appendix B.4, plus the usual check value of CRC catalogues.
VECTORS = [
    (bytes(32), 0x8A9136AA),
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
    (b"123456789", 0xE3069283),
    (b"", 0x00000000),
]

CRCMOD = crcmod.predefined.mkPredefinedCrcFun("crc-32c")

# Every library of the fallback chain, loaded for real (all are installed for tests).
LIBRARIES = {name: loader() for name, loader in FALLBACK_CHAIN}


@pytest.mark.parametrize(("data", "expected"), VECTORS)
def test_known_answers(data, expected):
    assert crc32c(data) == expected


@pytest.mark.parametrize("name", sorted(LIBRARIES))
@pytest.mark.parametrize(("data", "expected"), VECTORS)
def test_every_candidate_library_gives_the_known_answers(name, data, expected):
    assert LIBRARIES[name](data, 0) == expected


def test_the_measured_winner_is_in_use():
    # The docstring's choice; the fallbacks exist for installs without crc32c-rs.
    assert IMPLEMENTATION == "crc32c_rs"


def test_piecewise_equals_one_shot():
    data = bytes((i * 7 + 3) % 256 for i in range(10_000))
    whole = crc32c(data)
    for cut in (0, 1, 5, 4096, 9_999, 10_000):
        assert crc32c(data[cut:], crc32c(data[:cut])) == whole
    running = 0
    for start in range(0, len(data), 333):
        running = crc32c(data[start:start + 333], running)
    assert running == whole


def test_value_may_be_passed_by_keyword():
    assert crc32c(b"56789", value=crc32c(b"1234")) == 0xE3069283


def test_accepts_bytearray_memoryview_slices_and_mmap():
    data = bytearray(b"xx123456789yy")
    assert crc32c(data[2:11]) == 0xE3069283
    assert crc32c(memoryview(data)[2:11]) == 0xE3069283
    assert crc32c(memoryview(bytes(data))[2:11]) == 0xE3069283
    with mmap.mmap(-1, len(data)) as mapped:
        mapped[:] = data
        with memoryview(mapped) as view:
            assert crc32c(view[2:11]) == 0xE3069283


def test_large_buffer_agrees_with_crcmod():
    data = bytes(range(256)) * 4096 + b"tail"        # 1 MiB + 4 bytes
    assert crc32c(data) == CRCMOD(data)


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_each_library_of_the_chain_continues_a_crc_over_any_buffer(name):
    update = LIBRARIES[name]
    data = bytearray(b"123456789")
    assert update(memoryview(data), 0) == 0xE3069283
    assert update(memoryview(data)[4:], update(bytes(data[:4]), 0)) == 0xE3069283
    large = bytes(range(256)) * 256
    assert update(large, 0) == CRCMOD(large)


def test_fallback_chain_order_is_fastest_first():
    names = [name for name, _ in FALLBACK_CHAIN]
    assert names == ["crc32c_rs", "crc32c", "google_crc32c", "crcmod"]
