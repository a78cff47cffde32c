/*
 * Writing to a file descriptor whole: the corpus and the reports both need
 * every byte written or a clear failure, never a short write taken as done.
 */
#include <errno.h>
#include <unistd.h>

#include "internal.h"

int bc_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}
