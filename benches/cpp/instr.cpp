// The C++ side of the instruction counts (benches/instructions.py): calls the C++ FlatBuffers
// verifier (`flatbuffers::Verifier` with default options, then `tflite::VerifyModelBuffer`, the code
// flatc generates from src/formats/tflite/schema.fbs) on one model a few times, under
// `valgrind --tool=callgrind --toggle-collect=instr_measured`, so that callgrind counts exactly the
// instructions spent inside `instr_measured`.
//
// Built by benches/cpp/build.sh; it is not part of the Rust package.
//
// Usage: instr {empty|verify} MODEL.tflite CALLS
//
// As the Rust side (benches/instr.rs): one warm-up call outside `instr_measured` first, the same
// dispatch for both readers, and `empty`'s count is what the driver subtracts. Prints `ok` or
// `rejected`.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "flatbuffers/verifier.h"
#include "schema_generated.h"

namespace {

enum class Reader { kEmpty, kVerify };

bool verify(const uint8_t *buf, size_t len) {
  flatbuffers::Verifier verifier(buf, len, flatbuffers::Verifier::Options());
  return tflite::VerifyModelBuffer(verifier);
}

}  // namespace

// The measured call: the only function callgrind counts. The empty asm statements stop the
// compiler from folding calls together or dropping the result (the role of `black_box`).
extern "C" __attribute__((noinline)) bool instr_measured(Reader reader, const uint8_t *buf, size_t len) {
  asm volatile("" : "+r"(buf), "+r"(len) : : "memory");
  bool ok = reader == Reader::kEmpty ? true : verify(buf, len);
  asm volatile("" : : "r"(ok) : "memory");
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: instr {empty|verify} MODEL.tflite CALLS\n");
    return 2;
  }
  Reader reader;
  if (std::strcmp(argv[1], "empty") == 0) {
    reader = Reader::kEmpty;
  } else if (std::strcmp(argv[1], "verify") == 0) {
    reader = Reader::kVerify;
  } else {
    std::fprintf(stderr, "unknown reader %s; one of empty, verify\n", argv[1]);
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", argv[2]);
    return 2;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  long calls = std::strtol(argv[3], nullptr, 10);
  bool all = reader == Reader::kEmpty ? true : verify(bytes.data(), bytes.size());
  for (long i = 0; i < calls; ++i) {
    all &= instr_measured(reader, bytes.data(), bytes.size());
  }
  std::puts(all ? "ok" : "rejected");
  return 0;
}
