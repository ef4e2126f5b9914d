/* flatmodel from C on QEMU's Cortex-M boards (Makefile): verify the models in flash, reject
 * corrupted copies, print each verdict and its reason over semihosting, measure the stack each
 * call used by painting it, and exit 0 only when every verdict is the expected one. */
#include <stddef.h>
#include <stdint.h>

#include "flatmodel.h"
#include "semihost.h"

/* models.S */
extern const unsigned char sine_tflite[], sine_tflite_end[];
extern const unsigned char sine_circle[], sine_circle_end[];
/* link.ld: the end of the statics, below which the stack never grows. */
extern uint32_t bss_end[];

/* A RAM copy of a model to corrupt, aligned as the one in flash. */
static unsigned char copy[4096] __attribute__((aligned(16)));

static void print_uint(uint32_t n)
{
    char digits[11];
    char *p = digits + sizeof digits;
    *--p = '\0';
    do {
        *--p = (char)('0' + n % 10);
        n /= 10;
    } while (n != 0);
    semihost_write(p);
}

/* One call to measure: its arguments, and its verdict once made. */
struct call {
    const void *data;
    size_t len;
    /* Non-zero: fm_verify (any format); zero: fm_verify_tflite. */
    int any_format;
    fm_status status;
    fm_report report;
};

static __attribute__((noinline)) void make_call(struct call *call)
{
    if (call->any_format) {
        call->status = fm_verify(call->data, call->len, NULL, &call->report);
    } else {
        call->status = fm_verify_tflite(call->data, call->len, NULL, &call->report);
    }
}

/* Stack painting: fill the unused stack below this function with a pattern, make the call,
 * and find the deepest word it overwrote. Returns the bytes of stack the call used. */
#define PAINT 0xF1A7B0FFu
#define WINDOW (64u * 1024u) /* painted: more than any call uses */
#define MARGIN 256u          /* left unpainted below the stack pointer, for the loops */

static __attribute__((noinline)) uint32_t measure(struct call *call)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    uintptr_t top = sp - MARGIN;
    uintptr_t bottom = sp - WINDOW > (uintptr_t)bss_end ? sp - WINDOW : (uintptr_t)bss_end;
    for (uintptr_t at = bottom; at < top; at += 4) {
        *(volatile uint32_t *)at = PAINT;
    }
    make_call(call);
    uintptr_t deepest = top;
    for (uintptr_t at = bottom; at < top; at += 4) {
        if (*(volatile uint32_t *)at != PAINT) {
            deepest = at;
            break;
        }
    }
    return (uint32_t)(sp - deepest);
}

static int unexpected;
static uint32_t deepest_stack;

/* Makes the call, prints its verdict (the reason too when there is one) and the stack it used,
 * and counts it as unexpected unless the status and the format are the ones given. */
static void expect(const char *name, struct call call, fm_status status, fm_format format)
{
    uint32_t used = measure(&call);
    deepest_stack = used > deepest_stack ? used : deepest_stack;
    char message[256];
    size_t length = fm_report_message(&call.report, message, sizeof message);
    semihost_write(name);
    semihost_write(call.status == FM_OK ? ": ok, " : call.status == FM_INVALID ? ": rejected, " : ": refused, ");
    semihost_write(fm_format_name(call.report.format));
    if (call.status != FM_OK) {
        semihost_write(": ");
        semihost_write(message);
        semihost_write(length >= sizeof message ? "..." : "");
    }
    semihost_write("; stack ");
    print_uint(used);
    semihost_write(" B\n");
    if (call.status != status || call.report.format != format) {
        semihost_write("    ^ UNEXPECTED: that is not the verdict this call must give\n");
        unexpected++;
    }
}

int main(void)
{
    const size_t sine_len = (size_t)(sine_tflite_end - sine_tflite);
    const size_t circle_len = (size_t)(sine_circle_end - sine_circle);

    expect("sine_float.tflite in flash, fm_verify_tflite", (struct call){sine_tflite, sine_len, 0, 0, {0}}, FM_OK,
           FM_FORMAT_TFLITE);
    expect("c010_sine_float.circle in flash, fm_verify", (struct call){sine_circle, circle_len, 1, 0, {0}}, FM_OK,
           FM_FORMAT_CIRCLE);

    /* A copy in RAM verifies as the original does, until it is corrupted. */
    if (sine_len > sizeof copy) {
        semihost_write("sine_float.tflite does not fit the RAM copy\n");
        return 1;
    }
    for (size_t i = 0; i < sine_len; i++) {
        copy[i] = sine_tflite[i];
    }
    expect("sine_float.tflite, RAM copy", (struct call){copy, sine_len, 0, 0, {0}}, FM_OK, FM_FORMAT_TFLITE);
    /* The root offset (the first four bytes, little-endian) pointing far past the end. */
    copy[0] = 0xF0, copy[1] = 0xFF, copy[2] = 0xFF, copy[3] = 0x7F;
    expect("sine_float.tflite, RAM copy, root offset past the end", (struct call){copy, sine_len, 0, 0, {0}},
           FM_INVALID, FM_FORMAT_TFLITE);
    expect("sine_float.tflite, cut in half", (struct call){sine_tflite, sine_len / 2, 0, 0, {0}}, FM_INVALID,
           FM_FORMAT_TFLITE);
    expect("NULL data with a length", (struct call){NULL, 16, 0, 0, {0}}, FM_BAD_ARGUMENT, FM_FORMAT_UNKNOWN);

    semihost_write("deepest stack of any call: ");
    print_uint(deepest_stack);
    semihost_write(" bytes\n");
    semihost_write(unexpected == 0 ? "all verdicts as expected\n" : "UNEXPECTED VERDICTS\n");
    return unexpected == 0 ? 0 : 1;
}
