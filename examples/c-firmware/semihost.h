/* ARM semihosting (`bkpt 0xab`): text to the host's console and the exit status to QEMU. */
#ifndef SEMIHOST_H
#define SEMIHOST_H

/* Writes a NUL-terminated string (SYS_WRITE0). */
void semihost_write(const char *text);

/* Ends the run with `status` as QEMU's exit status (SYS_EXIT_EXTENDED). */
void semihost_exit(int status) __attribute__((noreturn));

#endif
