#!/usr/bin/env python3
"""A worker taking shared-file questions (EVAL_SHM, wire/PROTOCOL.md) that
misbehaves on purpose, for tests/test_shm.c.  It answers rule-numpy `add`
on int8 (pure Python, no NumPy), writing its output into the file, and then,
by its argument:

  honest        nothing more (its values are right)
  past-output   writes the byte just past its output's room (its guard)
  input         changes the first byte of input 0
  kill          kills itself with SIGKILL after mapping the file
  hang MARKER   writes its pid to MARKER (then renames it there) and sleeps
                with the file mapped, never answering
  sleep MS      sleeps MS milliseconds and answers in place, writing
                nothing (for a question far too big to compute in Python)
  silent-once MARKER
                the first question of all its workers (MARKER absent): writes
                its whole output into the file, creates MARKER and sleeps,
                never answering; after that it answers in place, leaving
                its last output element unwritten
"""
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "sut_adapters", "python"))
import bcwire as w  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "honest"
channel = w.Channel()


def shape_fn(params, shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        dims = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        big = [d for d in dims if d != 1]
        if any(d != big[0] for d in big):
            raise w.Rejected("not broadcastable", w.ERR_DIM_MISMATCH)
        out.append(big[0] if big else 1)
    return out


def element(t, index):
    """Element `index` (a tuple over the result's axes) of a broadcast input."""
    lead = len(index) - len(t.dims)
    at = t.offset
    for k, d in enumerate(t.dims):
        at += (0 if d == 1 else index[lead + k]) * t.strides[k]
    return struct.unpack_from("<b", t.data, at)[0]


def eval_fn(req):
    shape = shape_fn(req.params, req.shapes)
    if MODE == "sleep":
        time.sleep(int(sys.argv[2]) / 1000)
        return shape, w.IN_PLACE
    count = w.numel(shape)
    out = bytearray(count)
    index = [0] * len(shape)
    for e in range(count):
        v = sum(element(t, index) for t in req.inputs)
        out[e] = (v + 128) % 256 - 128 & 0xFF
        for k in reversed(range(len(shape))):
            index[k] += 1
            if index[k] < shape[k]:
                break
            index[k] = 0
    if req.shm is not None:
        if MODE == "past-output":
            req.shm[req.out_offset + req.capacity] = 0  # the first guard byte
        elif MODE == "input":
            at = req.input_offsets[0]
            req.shm[at] = (req.shm[at] + 1) % 256
        elif MODE == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif MODE == "silent-once":
            room = req.out_offset + len(out)
            if not os.path.exists(sys.argv[2]):
                req.shm[req.out_offset:room] = bytes(out)
                open(sys.argv[2], "w").close()
                while True:
                    signal.pause()
            req.shm[req.out_offset:room - 1] = bytes(out[:-1])
            return shape, w.IN_PLACE
        elif MODE == "hang":
            with open(sys.argv[2] + ".tmp", "w") as f:
                f.write("%d\n" % os.getpid())
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            while True:
                signal.pause()
    return shape, bytes(out)


CAPS = w.Capabilities("shm-test", "1", "shared-file questions, misbehaving: " + MODE,
                      features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SHM,
                      rules=w.bits(w.RULE_NUMPY), ops=w.bits(w.ADD), dtypes=w.bits(w.INT8),
                      max_rank=8, max_operands=4)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, shape_fn, eval_fn))
