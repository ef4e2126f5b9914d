/* flatmodel from C: verify each file named on the command line, whatever its format.
 * Prints one line per file and exits 0 when every file is valid, 1 when one is not, 2 when one
 * cannot be read (as `flatmodel verify` does). See README.md for building it. */
#include <stdio.h>
#include <stdlib.h>

#include "flatmodel.h"

/* The whole file in memory, or NULL. */
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long size;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc(size > 0 ? (size_t)size : 1);
        if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
            free(data);
            data = NULL;
        }
        *len = (size_t)size;
    }
    if (f) {
        fclose(f);
    }
    return data;
}

int main(int argc, char **argv) {
    int worst = 0;
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        unsigned char *data = read_file(argv[i], &len);
        if (!data) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            worst = 2;
            continue;
        }
        fm_report report;
        fm_status st = fm_verify(data, len, NULL, &report); /* any format; NULL = default limits */
        if (st == FM_OK) {
            printf("%s: ok (%s)\n", argv[i], fm_format_name(report.format));
        } else {
            char text[256];
            fm_report_message(&report, text, sizeof text);
            printf("%s: invalid: %s (format %s, byte %llu)\n", argv[i], text, fm_format_name(report.format),
                   (unsigned long long)report.offset);
            worst = worst > 1 ? worst : 1;
        }
        free(data);
    }
    return worst;
}
