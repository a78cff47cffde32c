"""NumPy's side of `broadcheck bench`: a server the bench drives line by
line, so that each pattern's NumPy run is timed right after the engine's
(and before the memory limit's), round after round, under one cache flush
done by the bench itself (the cache is the machine's, not the process's).

Usage: numpy_bench.py  (then commands on stdin, one answer line each)
  setup NAME A B TRANSPOSED CALLS  allocate the pattern's arrays -> "ok"
  run                              time np.add(a, b, out=o) once (CALLS == 0:
                                   seconds, wall clock) or CALLS times in a row
                                   (nanoseconds per call, thread CPU time) -> "t VALUE"
  free                             drop the arrays -> "ok"
The first line printed is "numpy VERSION". Exits 3 when numpy is missing
(the bench then prints "NumPy not available").

Page policy (the bench's for its own buffers too): transparent huge pages
requested with madvise(MADV_HUGEPAGE) for every array of 4 MiB or more,
which is what NumPy does by default on Linux; it is set explicitly here so
that a NumPy configured otherwise (NUMPY_MADVISE_HUGEPAGE=0) still matches.
"""
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit(3)


def shape(text):
    text = text.strip("[]")
    return tuple(int(d) for d in text.split(",")) if text else ()


def main():
    setter = getattr(np.core.multiarray, "_set_madvise_hugepage", None)
    if setter is not None:
        setter(True)
    print("numpy", np.__version__, flush=True)
    a = b = out = None
    calls = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "setup":
            _, name, sa, sb, transposed, calls_text = words
            calls = int(calls_text)
            a_shape, b_shape = shape(sa), shape(sb)
            n = int(np.prod(a_shape))
            if transposed == "1":  # a[i][j] = mem[j][i]
                a = (np.arange(n, dtype=np.float32) % 8 + 1).reshape(a_shape[::-1]).T
            else:
                a = (np.arange(n, dtype=np.float32) % 8 + 1).reshape(a_shape)
            b = (np.arange(int(np.prod(b_shape)), dtype=np.float32) % 8 + 2).reshape(b_shape)
            out = np.empty(np.broadcast_shapes(a_shape, b_shape), dtype=np.float32)
            np.add(a, b, out=out)  # first touch: pages mapped before any timing
            print("ok", flush=True)
        elif words[0] == "run":
            if calls:
                t0 = time.thread_time_ns()
                for _ in range(calls):
                    np.add(a, b, out=out)
                print("t", (time.thread_time_ns() - t0) / calls, flush=True)
            else:
                t0 = time.perf_counter()
                np.add(a, b, out=out)
                print("t", repr(time.perf_counter() - t0), flush=True)
        elif words[0] == "free":
            a = b = out = None
            print("ok", flush=True)


main()
