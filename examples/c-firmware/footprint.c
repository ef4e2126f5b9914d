/* The flash a C firmware pays for fm_verify_tflite: this program calls it and nothing else of
 * flatmodel (built with -DEMPTY, it calls nothing, and is what the other is measured against).
 * The input comes through volatile variables, so nothing about it is known when compiling.
 * `cargo xtask footprint` and `cargo xtask c-firmware-libs` build both (`make footprint`). */
#include <stddef.h>

#include "flatmodel.h"

static const unsigned char *volatile input;
static volatile size_t input_len;
static volatile fm_status verdict;

int main(void)
{
#ifdef EMPTY
    verdict = (fm_status)input_len;
#else
    fm_report report;
    verdict = fm_verify_tflite(input, input_len, NULL, &report);
#endif
    return 0;
}
