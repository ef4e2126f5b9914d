/* Start-up for a Cortex-M: the vector table, and the reset handler that sets up the statics,
 * turns the FPU on and runs main, whose return value becomes the exit status. */
#include <stdint.h>

#include "semihost.h"

/* From link.ld. */
extern uint32_t data_start[], data_end[], data_load[], bss_start[], bss_end[], stack_top[];

int main(void);

void reset(void) __attribute__((noreturn));

void reset(void)
{
    const uint32_t *from = data_load;
    for (uint32_t *to = data_start; to < data_end;) {
        *to++ = *from++;
    }
    for (uint32_t *to = bss_start; to < bss_end;) {
        *to++ = 0;
    }
#ifdef __ARM_FP
    /* Full access to the FPU (coprocessors 10 and 11, CPACR): hard-float code uses its registers. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    semihost_exit(main());
}

/* A fault or an unexpected interrupt ends the run with status 3. */
static void fault(void)
{
    semihost_exit(3);
}

/* An entry of the vector table: the initial stack pointer, or a handler. */
typedef union {
    uint32_t *stack;
    void (*handler)(void);
} vector;

__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
    {.stack = stack_top}, {.handler = reset},
    {.handler = fault},   {.handler = fault}, /* NMI, HardFault */
    {.handler = fault},   {.handler = fault}, /* MemManage, BusFault */
    {.handler = fault},   {.handler = 0},     /* UsageFault, reserved */
    {.handler = 0},       {.handler = 0},     /* reserved */
    {.handler = 0},       {.handler = fault}, /* reserved, SVCall */
    {.handler = fault},   {.handler = 0},     /* DebugMonitor, reserved */
    {.handler = fault},   {.handler = fault}, /* PendSV, SysTick */
};
