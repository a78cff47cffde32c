"""An exec: worker that reserves 2 GiB of address space before its HELLO,
as Node.js and a JVM do at start, then serves like the example worker.
With the argument --grow it also tries to allocate 512 MB for every shape
question (a runaway library).

broadcheck must let the reservation be (its limit is relative to the
address space a worker has after its HELLO) and still stop the runaway
(tests/test_isolation.c, test_exec_address_space)."""
import mmap
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "python_worker"))
import broadcheck_worker as worker  # noqa: E402

# Address space, not memory: the pages are never touched.
RESERVED = mmap.mmap(-1, 2 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)

if "--grow" in sys.argv[1:]:
    plain_infer_shape = worker.infer_shape

    def greedy_infer_shape(*args):
        hog = bytearray(512 << 20)  # raises MemoryError under the limit
        hog[-1] = 1
        return plain_infer_shape(*args)

    worker.infer_shape = greedy_infer_shape

sys.exit(worker.main())
