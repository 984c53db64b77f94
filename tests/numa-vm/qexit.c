/*
 * qexit.c - ends the QEMU guest of tests/numa-vm/run with a status: writes
 * its argument v to the isa-debug-exit port 0xf4, which makes QEMU exit
 * with (v << 1) | 1, so the host sees the guest test's result (a guest that
 * merely halts or panics makes QEMU exit 0, which the host counts as a
 * failure).  Linked statically: it runs from the initramfs with no libraries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
    unsigned v = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    if (ioperm(0xf4, 4, 1) != 0) {
        perror("qexit: ioperm(0xf4)");
        return 1;
    }
    outl(v, 0xf4);
    fprintf(stderr, "qexit: still running after writing to port 0xf4 (no isa-debug-exit?)\n");
    return 1;
}
