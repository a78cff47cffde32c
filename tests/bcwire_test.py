#!/usr/bin/env python3
"""Tests of sut_adapters/python/bcwire.py past 72 operands (RULES.md §9.5,
wire/PROTOCOL.md version 4): a HELLO says version 3 up to 72 operands, as
before, and 4 past them; 137 is refused; a SHAPE question of 136 shapes and
one of none (numpy-empty-fold) decode.  Exits 0 when every check passes."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "sut_adapters", "python"))
import bcwire as w  # noqa: E402


def caps(n):
    return w.Capabilities("t", "1", "", w.FEATURE_SHAPE, w.bits(w.RULE_NUMPY), max_operands=n)


def shape_payload(profile, shapes):
    options = w.OPT_PROFILE if profile else 0
    p = struct.pack("<IIIqI", w.RULE_NUMPY, options, profile, -1, 0) + struct.pack("<I", len(shapes))
    for s in shapes:
        p += struct.pack("<I", len(s)) + struct.pack("<%dq" % len(s), *s)
    return p


def main():
    for n, version in ((1, 3), (72, 3), (73, 4), (136, 4)):
        got = struct.unpack_from("<I", w.encode_hello(caps(n)))[0]
        assert got == version, "max_operands %d: HELLO says %d, want %d" % (n, got, version)
    assert struct.unpack_from("<I", w.encode_hello(caps(72)))[0] == 3
    for bad in (0, 137):
        try:
            caps(bad)
        except ValueError:
            continue
        raise AssertionError("max_operands %d accepted" % bad)
    shapes = [[i, 1] for i in range(136)]
    params, got = w.decode_shape(shape_payload(0, shapes))
    assert got == shapes, "136 shapes do not round trip"
    params, got = w.decode_shape(shape_payload(w.PROFILE_NUMPY_EMPTY_FOLD, []))
    assert got == [] and params.profile == w.PROFILE_NUMPY_EMPTY_FOLD
    print("bcwire_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
