#!/usr/bin/env python3
"""Tests of sut_adapters/python/bcwire.py past 72 operands (RULES.md §9.5,
wire/PROTOCOL.md version 4): a HELLO says version 3 up to 72 operands, as
before, and 4 past them; 137 is refused; a SHAPE question of 136 shapes and
one of none (numpy-empty-fold) decode.  Protocol 5: a PSHAPE whose
axes_mapping has unknown values (option 16; its length, or all ones) decodes,
reaches only a worker declaring PARTIAL_AXES_UNKNOWN, which alone says 5.
Exits 0 when every check passes."""
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


def pshape_payload(options, naxes, axes=()):
    """An explicit PSHAPE of [2,3] onto [2,4,3], no symbols (PROTOCOL.md)."""
    p = struct.pack("<IIIqI", w.RULE_EXPLICIT, options, 0, -1, naxes)
    p += struct.pack("<%dq" % len(axes), *axes)
    p += struct.pack("<II", 0, 2)
    for s in ([2, 3], [2, 4, 3]):
        p += struct.pack("<i", len(s))
        for d in s:
            p += struct.pack("<qqI", d, d, 0)
    return p


def unknown_mapping():
    mapping = w.OPT_AXES_MAPPING
    params, shapes, _ = w.decode_pshape(pshape_payload(mapping, 2, (0, 2)))
    assert params.axes == [0, 2] and params.naxes == 2
    params, shapes, _ = w.decode_pshape(pshape_payload(mapping | w.OPT_AXES_UNKNOWN, 2))
    assert params.axes is None and params.naxes == 2 and len(shapes) == 2
    params, _, _ = w.decode_pshape(pshape_payload(mapping | w.OPT_AXES_UNKNOWN, w.NAXES_UNKNOWN))
    assert params.axes is None and params.naxes is None
    for bad in (pshape_payload(w.OPT_AXES_UNKNOWN, 2),            # without axes-mapping
                pshape_payload(mapping | w.OPT_AXES_UNKNOWN, 65),  # past 64 entries
                pshape_payload(mapping | 32, 0)):                  # an unknown bit
        try:
            w.decode_pshape(bad)
        except ValueError:
            continue
        raise AssertionError("a bad PSHAPE decoded")
    seen = []

    def partial(params, shapes, symbols):
        seen.append(params.naxes)
        return shapes[1]
    question = pshape_payload(mapping | w.OPT_AXES_UNKNOWN, 2)
    status = struct.unpack_from("<I", w._respond_partial(question, partial, w.PARTIAL_DYNAMIC))[0]
    assert status == w.UNSUPPORTED and not seen, "a worker not declaring it was asked"
    status = struct.unpack_from("<I", w._respond_partial(question, partial,
                                                         w.PARTIAL_AXES_UNKNOWN))[0]
    assert status == w.OK and seen == [2]
    c = caps(72)
    c.partial = w.PARTIAL_DYNAMIC
    assert struct.unpack_from("<I", w.encode_hello(c))[0] == 3
    c.partial = w.PARTIAL_DYNAMIC | w.PARTIAL_AXES_UNKNOWN
    assert struct.unpack_from("<I", w.encode_hello(c))[0] == 5
    c = caps(136)
    c.partial = w.PARTIAL_AXES_UNKNOWN
    assert struct.unpack_from("<I", w.encode_hello(c))[0] == 5


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
    unknown_mapping()
    print("bcwire_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
