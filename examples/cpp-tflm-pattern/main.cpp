// flatmodel in the pattern TensorFlow Lite Micro follows: the model's bytes are verified first,
// and only verified bytes reach tflite::GetModel, flatc's generated reader, which checks nothing
// itself. TFLite Micro calls GetModel on the bytes in flash and builds its interpreter from the
// Model it returns; here the operators are printed instead. See README.md for building it.
//
//   tflm_pattern [--runtime tflm|litert] MODEL.tflite
//
// Exit status: 0 read, 1 rejected (never read), 2 usage or I/O, 3 flatbuffers' own verifier
// disagrees with flatmodel's verdict (which the README says does not happen).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "flatmodel.h"
#include "schema_generated.h"  // flatc --cpp src/formats/tflite/schema.fbs (build.sh)

// The operator a code names: the larger of its two fields, TFLite's own rule (the byte field
// holds codes below 127, the int field the others; writers fill either or both).
static tflite::BuiltinOperator builtin_code(const tflite::OperatorCode *code) {
    return std::max(code->builtin_code(), static_cast<tflite::BuiltinOperator>(code->deprecated_builtin_code()));
}

int main(int argc, char **argv) {
    const char *path = nullptr;
    fm_runtime runtime = 0;
    if (argc == 4 && std::strcmp(argv[1], "--runtime") == 0) {
        runtime = std::strcmp(argv[2], "tflm") == 0     ? FM_RUNTIME_TFLM
                  : std::strcmp(argv[2], "litert") == 0 ? FM_RUNTIME_LITERT
                                                        : -1;
        path = argv[3];
    } else if (argc == 2) {
        path = argv[1];
    }
    if (path == nullptr || runtime < 0) {
        std::fprintf(stderr, "usage: %s [--runtime tflm|litert] MODEL.tflite\n", argv[0]);
        return 2;
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "%s: cannot read\n", path);
        return 2;
    }
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());

    // 1. Verify: the structure (as flatc's verifier would, and stricter), TFLite's model rules,
    //    and with --runtime that runtime's own load checks.
    fm_report report;
    fm_status st = runtime == 0 ? fm_verify_tflite(bytes.data(), bytes.size(), nullptr, &report)
                                : fm_check_runtime(bytes.data(), bytes.size(), runtime, nullptr, &report);
    if (st != FM_OK) {
        char text[256];
        fm_report_message(&report, text, sizeof text);
        std::printf("%s: rejected, not read: %s\n", path, text);
        return 1;
    }

    // 2. Read: the same bytes, through flatc's generated code, unchecked.
    const tflite::Model *model = tflite::GetModel(bytes.data());
    std::printf("%s: verified by flatmodel (%zu bytes), read with tflite::GetModel: schema version %u\n", path,
                bytes.size(), model->version());

    // Indices are in range (the model rules), so they can be followed without checks; an optional
    // field may still be absent (nullptr).
    const auto *codes = model->operator_codes();
    const auto *subgraphs = model->subgraphs();
    for (flatbuffers::uoffset_t s = 0; subgraphs != nullptr && s < subgraphs->size(); s++) {
        const tflite::SubGraph *subgraph = subgraphs->Get(s);
        const auto *operators = subgraph->operators();
        const auto count = operators != nullptr ? operators->size() : 0;
        std::printf("subgraph %u: %u operators\n", s, count);
        for (flatbuffers::uoffset_t o = 0; o < count; o++) {
            const tflite::OperatorCode *code = codes->Get(operators->Get(o)->opcode_index());
            const tflite::BuiltinOperator op = builtin_code(code);
            if (op == tflite::BuiltinOperator_CUSTOM) {
                std::printf("  %u CUSTOM %s\n", o, code->custom_code()->c_str());
            } else {
                // EnumNameBuiltinOperator gives "" for a code newer than this schema.
                const char *name = tflite::EnumNameBuiltinOperator(op);
                std::printf("  %u %s v%d\n", o, *name != '\0' ? name : "(newer builtin)", code->version());
            }
        }
    }

    // flatbuffers' own verifier accepts what flatmodel accepted.
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!tflite::VerifyModelBuffer(verifier)) {
        std::printf("%s: flatbuffers' verifier rejects what flatmodel accepted\n", path);
        return 3;
    }
    std::printf("flatbuffers' verifier (VerifyModelBuffer) agrees\n");
    return 0;
}
