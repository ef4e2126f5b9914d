/* flatmodel.h from C, built with -fsanitize=address,undefined (capi/tests/c/run.sh):
 *
 * - every model file of testdata/ (each must be valid), testdata/regressions/ and, when
 *   FLATMODEL_CORPUS names a directory, every file of the corpus that is not a reference dump;
 * - copies of each corrupted where no format can accept them (identifier, root offset), and
 *   copies with a few bytes changed at places a seeded generator picks (any verdict);
 * - every truncation of the smallest testdata model of each format;
 * - misuse: NULL data, NULL report, zero length, lengths past PTRDIFF_MAX, misaligned options
 *   and report, unknown runtimes, a message `cap` of 0 and 1, NULL text.
 *
 * Each input is placed at the very end of a mapping followed by an inaccessible page, so that
 * any read past its end, by the C side or the (uninstrumented) Rust code, faults. Every report is
 * checked: status and kind consistent, the format's own function agreeing with fm_verify,
 * the message and path NUL-terminated at every `cap`, their returned lengths right. The test
 * prints its counts and exits non-zero on any failed expectation. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flatmodel.h"

static unsigned long checks, failures;

/* The input being checked, named in failure messages. */
static char current[2048];

static void expect(int ok, const char *what, int line) {
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 50) {
            fprintf(stderr, "FAIL line %d: %s (%s)\n", line, what, current);
        }
    }
}
#define EXPECT(cond) expect((cond) ? 1 : 0, #cond, __LINE__)

/* ---- inputs at the end of a guarded mapping ---- */

struct guarded {
    unsigned char *map;
    size_t map_len;
    unsigned char *data; /* the copy: its last byte is the mapping's last readable byte */
};

static size_t page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

static struct guarded guard_copy(const unsigned char *bytes, size_t len) {
    struct guarded g;
    size_t page = page_size();
    size_t body = (len + page - 1) / page * page;
    if (body == 0) {
        body = page;
    }
    g.map_len = body + page;
    g.map = mmap(NULL, g.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g.map == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    if (mprotect(g.map + body, page, PROT_NONE) != 0) {
        perror("mprotect");
        exit(2);
    }
    g.data = g.map + body - len;
    if (len > 0) {
        memcpy(g.data, bytes, len);
    }
    /* Read-only, as model bytes in flash or a read-only mapping are. */
    if (mprotect(g.map, body, PROT_READ) != 0) {
        perror("mprotect");
        exit(2);
    }
    return g;
}

static void guard_free(struct guarded *g) {
    munmap(g->map, g->map_len);
}

/* ---- reports ---- */

typedef fm_status (*verify_fn)(const void *, size_t, const fm_options *, fm_report *);
typedef size_t (*text_fn)(const fm_report *, char *, size_t);

static const struct {
    fm_format format;
    verify_fn verify;
} FORMATS[] = {
    {FM_FORMAT_TFLITE, fm_verify_tflite},   {FM_FORMAT_CIRCLE, fm_verify_circle},
    {FM_FORMAT_VKGRAPH, fm_verify_vkgraph}, {FM_FORMAT_PTE, fm_verify_pte},
    {FM_FORMAT_CVIMODEL, fm_verify_cvimodel}, {FM_FORMAT_XNNPACK, fm_verify_xnnpack},
    {FM_FORMAT_PTD, fm_verify_ptd},             {FM_FORMAT_LITERTLM, fm_verify_litertlm},
};
#define FORMAT_COUNT (sizeof FORMATS / sizeof FORMATS[0])

/* Whether the `n` bytes at `s` are UTF-8 in shape: lead bytes followed by their continuations. */
static int is_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
        if (more == 4 || more >= n - i) {
            return 0;
        }
        for (size_t k = 1; k <= more; k++) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return 0;
            }
        }
        i += more + 1;
    }
    return 1;
}

/* Checks `text_of` (fm_report_message or fm_report_path) on `report` at every interesting `cap`
 * and writes the full text to `full` (of `full_cap` bytes). Returns its length. */
static size_t check_text(text_fn text_of, const fm_report *report, char *full, size_t full_cap) {
    size_t len = text_of(report, NULL, 0);
    EXPECT(text_of(report, NULL, 100) == len); /* NULL text is a cap of 0 */
    EXPECT(len < full_cap);
    if (len >= full_cap) {
        return 0;
    }
    EXPECT(text_of(report, full, full_cap) == len);
    EXPECT(strlen(full) == len);
    EXPECT(is_utf8((const unsigned char *)full, len));
    size_t caps[] = {0, 1, 2, 3, len / 2, len > 0 ? len - 1 : 0, len, len + 1, len + 2};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        size_t cap = caps[c];
        char out[1100];
        memset(out, 0x5A, sizeof out);
        EXPECT(text_of(report, out, cap) == len);
        if (cap == 0) {
            EXPECT(out[0] == 0x5A); /* nothing written */
            continue;
        }
        size_t kept = strnlen(out, cap);
        EXPECT(kept < cap);                                  /* NUL-terminated within cap */
        EXPECT(kept <= len && memcmp(out, full, kept) == 0); /* a prefix of the message */
        EXPECT(kept == len || (cap <= len && kept <= cap - 1));
        EXPECT(kept == len || ((unsigned char)full[kept] & 0xC0) != 0x80); /* cut between characters */
        EXPECT(kept == len || kept + 4 > cap - 1);                         /* cut only what did not fit */
        EXPECT(cap + 1 >= sizeof out || out[cap] == 0x5A);                 /* nothing past cap */
    }
    return len;
}

/* Checks one report of a call with valid arguments, and writes its message to `message`. */
static void check_report(fm_status st, const fm_report *r, char *message, size_t cap) {
    char path[1100];
    EXPECT(st == FM_OK || st == FM_INVALID);
    EXPECT(r->status == st);
    if (st == FM_OK) {
        EXPECT(r->kind == FM_ERROR_NONE && r->offset == 0);
    } else {
        /* The offset may lie past the end: an offset field pointing outside the input is
         * reported at the byte it points to. */
        EXPECT(r->kind != FM_ERROR_NONE);
    }
    size_t n = check_text(fm_report_message, r, message, cap);
    EXPECT(st != FM_OK || strcmp(message, "ok") == 0);
    EXPECT(st == FM_OK || n > 0);
    size_t p = check_text(fm_report_path, r, path, sizeof path);
    EXPECT(st != FM_OK || p == 0);
    /* A copy of a report reads the same. */
    fm_report copy;
    char again[1100];
    memcpy(&copy, r, sizeof copy);
    EXPECT(fm_report_message(&copy, again, sizeof again) == n && strcmp(again, message) == 0);
}

/* Two reports say the same: status, format, kind, offset and message. */
static int same_report(fm_status a_st, const fm_report *a, fm_status b_st, const fm_report *b) {
    char ta[1100], tb[1100];
    fm_report_message(a, ta, sizeof ta);
    fm_report_message(b, tb, sizeof tb);
    return a_st == b_st && a->kind == b->kind && a->offset == b->offset && strcmp(ta, tb) == 0;
}

enum expectation { ANY, VALID, INVALID };

static unsigned long verdicts[2];

/* Every call of the header over one input; returns fm_verify's status and its format. */
static fm_status check_bytes(const unsigned char *bytes, size_t len, enum expectation want, fm_format *format) {
    struct guarded g = guard_copy(bytes, len);
    fm_report r;
    char message[1100];
    fm_status st = fm_verify(g.data, len, NULL, &r);
    check_report(st, &r, message, sizeof message);
    EXPECT(want != VALID || st == FM_OK);
    EXPECT(want != INVALID || st == FM_INVALID);
    if (want == VALID && st != FM_OK) {
        fprintf(stderr, "  rejected: %s\n", message);
    }
    if (st == FM_OK || st == FM_INVALID) {
        verdicts[st]++;
    }

    /* NULL report, explicit default options: the same verdict. */
    EXPECT(fm_verify(g.data, len, NULL, NULL) == st);
    fm_options defaults = fm_options_default();
    fm_report with_defaults;
    fm_status st2 = fm_verify(g.data, len, &defaults, &with_defaults);
    EXPECT(same_report(st, &r, st2, &with_defaults) && with_defaults.format == r.format);

    /* Each format's own function: the same report for the recognised format, a rejection for
     * the others (and for all of them when no format was recognised). */
    for (size_t i = 0; i < FORMAT_COUNT; i++) {
        fm_report own;
        fm_status own_st = FORMATS[i].verify(g.data, len, NULL, &own);
        char own_message[1100];
        check_report(own_st, &own, own_message, sizeof own_message);
        EXPECT(own.format == FORMATS[i].format);
        if (FORMATS[i].format == r.format) {
            EXPECT(same_report(st, &r, own_st, &own));
        } else {
            EXPECT(own_st == FM_INVALID);
        }
    }

    /* TFLite: the runtimes' load checks come after the structure and the rules. */
    if (r.format == FM_FORMAT_TFLITE) {
        fm_runtime runtimes[] = {FM_RUNTIME_LITERT, FM_RUNTIME_TFLM};
        for (size_t i = 0; i < 2; i++) {
            fm_report rt;
            char rt_message[1100];
            fm_status rt_st = fm_check_runtime(g.data, len, runtimes[i], NULL, &rt);
            check_report(rt_st, &rt, rt_message, sizeof rt_message);
            EXPECT(rt.format == FM_FORMAT_TFLITE);
            EXPECT(st == FM_OK || same_report(st, &r, rt_st, &rt));
        }
    }
    *format = r.format;
    guard_free(&g);
    return st;
}

/* ---- files ---- */

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fclose(f);
        return NULL;
    }
    *len = (size_t)st.st_size;
    unsigned char *bytes = malloc(*len > 0 ? *len : 1);
    if (bytes && fread(bytes, 1, *len, f) != *len) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    return bytes;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A model file as the Rust tests list them (tests/support/mod.rs: model_files). */
static int is_model(const char *name) {
    const char *suffixes[] = {".tflite", ".circle", ".cvimodel", ".pte", ".vh00", ".vk00.bin", ".xh00", ".xn.bin", ".ptd", ".litertlm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (ends_with(name, suffixes[i])) {
            return 1;
        }
    }
    return 0;
}

/* A reference dump or a note beside the models, not an input. */
static int is_reference(const char *name) {
    return ends_with(name, ".json") || ends_with(name, ".json.gz") || ends_with(name, ".txt") ||
           ends_with(name, ".md") || ends_with(name, ".py") || name[0] == '.';
}

static unsigned long files, corrupted, shuffled;

/* xorshift64: the seeded generator of the changed bytes. */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One file: as it is, with no format's identifier, with its root offset past the end, and
 * with a few bytes changed. */
static void check_file(const char *path, enum expectation want) {
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    snprintf(current, sizeof current, "%s", path);
    EXPECT(bytes != NULL);
    if (!bytes) {
        return;
    }
    files++;
    fm_format format;
    check_bytes(bytes, len, want, &format);

    unsigned char *copy = malloc(len > 0 ? len : 1);
    if (len >= 8) {
        /* No identifier any format has, at byte 0 (cvimodel's magic) or 4 (the others'). */
        memcpy(copy, bytes, len);
        memcpy(copy, "XXXXXXXX", 8);
        snprintf(current, sizeof current, "%s, identifier overwritten", path);
        check_bytes(copy, len, INVALID, &format);
        corrupted++;
        /* A flatbuffer whose root offset points past the end (a VH00 blob and a cvimodel begin
         * with a header, not a root offset). */
        int rooted = memcmp(bytes + 4, "TFL3", 4) == 0 || memcmp(bytes + 4, "CIR0", 4) == 0 ||
                     memcmp(bytes + 4, "ET12", 4) == 0 || memcmp(bytes + 4, "VK00", 4) == 0;
        if (rooted) {
            memcpy(copy, bytes, len);
            memset(copy, 0xF0, 4);
            snprintf(current, sizeof current, "%s, root offset past the end", path);
            check_bytes(copy, len, INVALID, &format);
            corrupted++;
        }
    }
    for (int round = 0; round < 8 && len > 0; round++) {
        memcpy(copy, bytes, len);
        int changes = 1 + (int)(next_random() % 4);
        for (int c = 0; c < changes; c++) {
            /* Half the changes in the first 256 bytes, where the root tables and headers are. */
            size_t span = (next_random() & 1) && len > 256 ? 256 : len;
            copy[next_random() % span] ^= (unsigned char)(1 + next_random() % 255);
        }
        snprintf(current, sizeof current, "%s, %d bytes changed (round %d)", path, changes, round);
        check_bytes(copy, len, ANY, &format);
        shuffled++;
    }
    free(copy);
    free(bytes);
}

/* Every file below `dir` (recursively, sorted) that `keep` accepts. */
static void walk(const char *dir, int (*keep)(const char *), enum expectation want) {
    struct dirent **entries;
    int n = scandir(dir, &entries, NULL, alphasort);
    if (n < 0) {
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        if (name[0] != '.' && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                walk(path, keep, want);
            } else if (S_ISREG(st.st_mode) && keep(name)) {
                check_file(path, want);
            }
        }
        free(entries[i]);
    }
    free(entries);
}

static int is_input(const char *name) {
    return !is_reference(name);
}

/* ---- truncations ---- */

static unsigned long truncations, truncated_models;

/* Every proper prefix of the file at `path`. */
static void check_truncations(const char *path) {
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    snprintf(current, sizeof current, "%s", path);
    EXPECT(bytes != NULL);
    if (!bytes) {
        return;
    }
    truncated_models++;
    for (size_t cut = 0; cut < len; cut++) {
        fm_format format;
        snprintf(current, sizeof current, "%s cut to %zu bytes", path, cut);
        check_bytes(bytes, cut, ANY, &format);
        truncations++;
    }
    free(bytes);
}

/* ---- misuse ---- */

static unsigned long misuse;

static void check_bad_argument(fm_status st, const fm_report *r, const char *says) {
    char text[300];
    misuse++;
    EXPECT(st == FM_BAD_ARGUMENT);
    EXPECT(r->status == FM_BAD_ARGUMENT && r->kind == FM_ERROR_NONE && r->offset == 0);
    EXPECT(r->format == FM_FORMAT_UNKNOWN);
    size_t n = fm_report_message(r, text, sizeof text);
    EXPECT(n == strlen(text) && strstr(text, says) != NULL);
    EXPECT(fm_report_path(r, text, sizeof text) == 0 && text[0] == 0);
}

static void check_misuse(const unsigned char *model, size_t model_len) {
    snprintf(current, sizeof current, "misuse");
    struct guarded g = guard_copy(model, model_len);
    fm_report r;
    char text[300];

    for (size_t i = 0; i < FORMAT_COUNT + 1; i++) {
        verify_fn f = i < FORMAT_COUNT ? FORMATS[i].verify : fm_verify;
        /* NULL data with a length: refused, nothing read. */
        check_bad_argument(f(NULL, 16, NULL, &r), &r, "data is NULL");
        /* NULL data, length 0: the empty input, invalid. */
        fm_status st = f(NULL, 0, NULL, &r);
        EXPECT(st == FM_INVALID && r.status == FM_INVALID);
        EXPECT(r.kind == (f == fm_verify ? FM_ERROR_UNKNOWN_FORMAT : FM_ERROR_TRUNCATED));
        misuse++;
        /* A length no object can have: refused before any read. */
        check_bad_argument(f(g.data, (size_t)PTRDIFF_MAX + 1, NULL, &r), &r, "len is larger");
        check_bad_argument(f(g.data, SIZE_MAX, NULL, &r), &r, "len is larger");
        /* Zero length at a valid pointer: invalid. */
        st = f(g.data, 0, NULL, &r);
        EXPECT(st == FM_INVALID && r.status == FM_INVALID);
        EXPECT(r.kind == (f == fm_verify ? FM_ERROR_UNKNOWN_FORMAT : FM_ERROR_TRUNCATED));
        misuse++;
        /* NULL report: the status alone. */
        EXPECT(f(NULL, 16, NULL, NULL) == FM_BAD_ARGUMENT);
        EXPECT(f(g.data, 0, NULL, NULL) == FM_INVALID);
        misuse += 2;
    }
    /* The valid model: ok with or without a report. */
    EXPECT(fm_verify(g.data, model_len, NULL, NULL) == FM_OK);
    EXPECT(fm_verify_tflite(g.data, model_len, NULL, NULL) == FM_OK);
    misuse += 2;

    /* Unknown runtimes: refused, the report says which argument. */
    fm_runtime unknown[] = {0, 3, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        check_bad_argument(fm_check_runtime(g.data, model_len, unknown[i], NULL, &r), &r, "runtime");
        EXPECT(fm_check_runtime(g.data, model_len, unknown[i], NULL, NULL) == FM_BAD_ARGUMENT);
        misuse++;
    }
    check_bad_argument(fm_check_runtime(NULL, 16, FM_RUNTIME_TFLM, NULL, &r), &r, "data is NULL");

    /* Misaligned options and report (made through uintptr_t; the library only compares the
     * address and never reads through it). */
    _Alignas(8) unsigned char room[sizeof(fm_report) + 16];
    const fm_options *bad_options = (const fm_options *)(void *)(uintptr_t)(room + 1);
    check_bad_argument(fm_verify(g.data, model_len, bad_options, &r), &r, "options is not aligned");
    memset(room, 0x77, sizeof room);
    fm_report *bad_report = (fm_report *)(void *)(uintptr_t)(room + 4);
    EXPECT(fm_verify(g.data, model_len, NULL, bad_report) == FM_BAD_ARGUMENT);
    int untouched = 1;
    for (size_t i = 0; i < sizeof room; i++) {
        untouched &= room[i] == 0x77;
    }
    EXPECT(untouched); /* a misaligned report stays unwritten */
    misuse++;

    /* Options: the defaults as documented, and limits that bite. */
    fm_options o = fm_options_default();
    EXPECT(o.max_depth == 64 && o.max_tables == 16u * 1024 * 1024 && o.apparent_size_per_byte == 16);
    EXPECT(o.max_apparent_size == UINT64_MAX && o.check_alignment == 1);
    EXPECT(o.max_inflated_size == 1024u * 1024 * 1024);
    o.max_depth = 1;
    EXPECT(fm_verify(g.data, model_len, &o, &r) == FM_INVALID && r.kind == FM_ERROR_DEPTH_LIMIT);
    o = fm_options_default();
    o.apparent_size_per_byte = 0;
    o.max_apparent_size = 0;
    EXPECT(fm_verify(g.data, model_len, &o, &r) == FM_INVALID && r.kind == FM_ERROR_APPARENT_SIZE_LIMIT);
    misuse += 3;

    /* Messages: cap 0 writes nothing, cap 1 only the NUL; NULL text is cap 0; NULL report is
     * the empty message. */
    fm_verify(NULL, 16, NULL, &r);
    size_t n = fm_report_message(&r, NULL, 0);
    EXPECT(n > 0);
    memset(text, 0x5A, sizeof text);
    EXPECT(fm_report_message(&r, text, 0) == n && (unsigned char)text[0] == 0x5A);
    EXPECT(fm_report_message(&r, text, 1) == n && text[0] == 0 && (unsigned char)text[1] == 0x5A);
    EXPECT(fm_report_message(&r, NULL, 1) == n);
    EXPECT(fm_report_message(NULL, text, sizeof text) == 0 && text[0] == 0);
    EXPECT(fm_report_path(NULL, text, sizeof text) == 0 && text[0] == 0);
    EXPECT(fm_report_message(NULL, NULL, 0) == 0);
    misuse += 7;
    fm_verify(g.data, model_len, NULL, &r);
    memset(text, 0x5A, sizeof text);
    EXPECT(fm_report_message(&r, text, 1) == 2 && text[0] == 0 && (unsigned char)text[1] == 0x5A);
    EXPECT(fm_report_message(&r, text, 2) == 2 && strcmp(text, "o") == 0);
    EXPECT(fm_report_message(&r, text, 3) == 2 && strcmp(text, "ok") == 0);
    misuse += 3;

    /* Format names, out-of-range values included. */
    const char *names[] = {"unknown", "tflite", "circle", "vkgraph", "pte", "cvimodel", "xnnpack", "ptd", "litertlm"};
    for (int f = 0; f <= 8; f++) {
        EXPECT(strcmp(fm_format_name(f), names[f]) == 0);
    }
    EXPECT(strcmp(fm_format_name(9), "unknown") == 0 && strcmp(fm_format_name(-1), "unknown") == 0);
    misuse += 10;
    guard_free(&g);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TESTDATA_DIR (FLATMODEL_CORPUS: the corpus, when set)\n", argv[0]);
        return 2;
    }
    const char *testdata = argv[1];
    char dir[1024];

    snprintf(dir, sizeof dir, "%s/tflite/sine_float.tflite", testdata);
    size_t model_len;
    unsigned char *model = read_file(dir, &model_len);
    if (!model) {
        fprintf(stderr, "cannot read %s\n", dir);
        return 2;
    }
    check_misuse(model, model_len);
    free(model);

    const char *model_dirs[] = {"tflite", "circle", "cvimodel", "vkgraph", "xnnpack", "ptd", "litertlm"};
    for (size_t i = 0; i < sizeof model_dirs / sizeof model_dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", testdata, model_dirs[i]);
        walk(dir, is_model, VALID);
    }
    unsigned long testdata_files = files;
    snprintf(dir, sizeof dir, "%s/regressions", testdata);
    walk(dir, is_input, ANY);

    /* The smallest testdata model of each format, cut at every length. */
    const char *small[] = {"tflite/sine_float.tflite", "circle/sine_float.circle",
                           "cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel", "vkgraph/vk_mlp.delegate0.vh00",
                           "vkgraph/vk_mlp.delegate0.vk00.bin", "vkgraph/vk_mlp.pte",
                           "xnnpack/xnn_partial_cumsum.delegate1.xh00", "xnnpack/xnn_partial_cumsum.delegate1.xn.bin",
                           "xnnpack/xnn_partial_cumsum.pte", "ptd/ptd_mlp_portable.ptd",
                           "litertlm/litertlm_sp_llm.litertlm"};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", testdata, small[i]);
        check_truncations(dir);
    }

    const char *corpus = getenv("FLATMODEL_CORPUS");
    unsigned long before_corpus = files;
    struct stat st;
    if (corpus && *corpus && stat(corpus, &st) == 0 && S_ISDIR(st.st_mode)) {
        walk(corpus, is_input, ANY);
    } else {
        fprintf(stderr, "skipping in sanitize.c: the corpus: FLATMODEL_CORPUS %s\n",
                corpus && *corpus ? "names no directory" : "is not set");
    }

    printf("files: %lu (testdata models %lu, regressions %lu, corpus %lu); corrupted copies: %lu "
           "rejected as expected, %lu with bytes changed; truncations: %lu of %lu models; "
           "verdicts: %lu ok, %lu invalid; misuse cases: %lu; checks: %lu, failed: %lu\n",
           files, testdata_files, before_corpus - testdata_files, files - before_corpus, corrupted, shuffled,
           truncations, truncated_models, verdicts[FM_OK], verdicts[FM_INVALID], misuse, checks, failures);
    return failures == 0 && testdata_files > 0 ? 0 : 1;
}
