/* ARM semihosting: the operation in r0, its argument in r1, then `bkpt 0xab`, which the debugger
 * (here QEMU, with -semihosting-config enable=on) carries out. */
#include <stdint.h>

#include "semihost.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static void semihost_call(uint32_t operation, const void *argument)
{
    register uint32_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void semihost_write(const char *text)
{
    semihost_call(SYS_WRITE0, text);
}

void semihost_exit(int status)
{
    /* The reason and the status: QEMU exits with the status. */
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost_call(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}
