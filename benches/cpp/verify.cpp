// Times the C++ FlatBuffers verifier on TFLite models: `flatbuffers::Verifier` (default options)
// plus `tflite::VerifyModelBuffer` from the code flatc generates from src/formats/tflite/schema.fbs.
//
// Built and run by benches/cpp/build.sh and benches/run.sh; it is not part of the Rust package.
//
// Usage: verify [--warm-up-time S] [--measurement-time S] [--samples N] FILE...
//
// For each file, the method follows criterion's default (linear) sampling, so that its median is
// comparable with the `cargo bench` figures: a warm-up that doubles the iteration count until the
// warm-up time has passed gives a mean time per call; from it an iteration step `d` is chosen so
// that samples of d, 2d, ..., N*d iterations fill the measurement time; each sample's time divided
// by its iteration count is one per-iteration time, and the figure is their median.
//
// Output (stdout), tab-separated, one line per file after a `#` header line:
//   file  bytes  median_ns  result  samples  iterations
// `file` is the file name without `.tflite`; `result` is `ok` when VerifyModelBuffer accepts the
// model and `rejected` when it does not (then median_ns is `-` and nothing is timed).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "flatbuffers/verifier.h"
#include "schema_generated.h"

namespace {

using Clock = std::chrono::steady_clock;

// Verifies one buffer. The pointer and length pass through an empty asm statement that the
// compiler must assume reads and changes them and all memory, so that no call can be hoisted out
// of the timed loop or folded across iterations (the role of `black_box` in the Rust benches).
inline bool verify_once(const uint8_t *buf, size_t len) {
  asm volatile("" : "+r"(buf), "+r"(len) : : "memory");
  flatbuffers::Verifier verifier(buf, len, flatbuffers::Verifier::Options());
  bool ok = tflite::VerifyModelBuffer(verifier);
  asm volatile("" : : "r"(ok) : "memory");
  return ok;
}

// Runs `iters` verifications and returns the elapsed nanoseconds.
double run(const uint8_t *buf, size_t len, uint64_t iters) {
  auto start = Clock::now();
  for (uint64_t i = 0; i < iters; ++i) {
    verify_once(buf, len);
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

struct Timing {
  double median_ns;
  uint64_t samples;
  uint64_t iterations;
};

Timing measure(const std::vector<uint8_t> &bytes, double warm_up_s, double measure_s,
               uint64_t samples) {
  const uint8_t *buf = bytes.data();
  size_t len = bytes.size();
  // Warm-up: 1, 2, 4, ... iterations until the warm-up time has passed.
  double warm_ns = 0;
  uint64_t warm_iters = 0;
  for (uint64_t iters = 1;; iters *= 2) {
    warm_ns += run(buf, len, iters);
    warm_iters += iters;
    if (warm_ns > warm_up_s * 1e9) break;
  }
  double mean_ns = warm_ns / static_cast<double>(warm_iters);
  // Linear sampling: samples of d, 2d, ..., n*d iterations that together take the measurement time.
  double total_runs = static_cast<double>(samples) * static_cast<double>(samples + 1) / 2.0;
  uint64_t d = static_cast<uint64_t>(std::ceil(measure_s * 1e9 / mean_ns / total_runs));
  if (d < 1) d = 1;
  std::vector<double> per_iter;
  per_iter.reserve(samples);
  uint64_t iterations = 0;
  for (uint64_t k = 1; k <= samples; ++k) {
    uint64_t iters = k * d;
    per_iter.push_back(run(buf, len, iters) / static_cast<double>(iters));
    iterations += iters;
  }
  std::sort(per_iter.begin(), per_iter.end());
  size_t n = per_iter.size();
  double median = n % 2 ? per_iter[n / 2] : (per_iter[n / 2 - 1] + per_iter[n / 2]) / 2.0;
  return Timing{median, samples, iterations};
}

std::string stem(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string ext = ".tflite";
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
    name.resize(name.size() - ext.size());
  }
  return name;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: verify [--warm-up-time S] [--measurement-time S] [--samples N] FILE...\n");
  std::exit(2);
}

double number(int argc, char **argv, int &i) {
  if (i + 1 >= argc) usage();
  char *end = nullptr;
  double v = std::strtod(argv[++i], &end);
  if (end == argv[i] || *end != '\0' || !(v > 0)) usage();
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  double warm_up_s = 0.5, measure_s = 1.0;
  uint64_t samples = 30;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--warm-up-time")) {
      warm_up_s = number(argc, argv, i);
    } else if (!std::strcmp(argv[i], "--measurement-time")) {
      measure_s = number(argc, argv, i);
    } else if (!std::strcmp(argv[i], "--samples")) {
      samples = static_cast<uint64_t>(number(argc, argv, i));
      if (samples < 2) usage();
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      usage();
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) usage();

  std::printf("# file\tbytes\tmedian_ns\tresult\tsamples\titerations\n");
  std::vector<std::string> seen;
  int status = 0;
  for (const std::string &path : files) {
    std::string name = stem(path);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      std::fprintf(stderr, "skipped %s: a file named %s was already measured\n", path.c_str(),
                   name.c_str());
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "skipped %s: unreadable\n", path.c_str());
      status = 1;
      continue;
    }
    seen.push_back(name);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (!verify_once(bytes.data(), bytes.size())) {
      std::fprintf(stderr, "note %s: VerifyModelBuffer rejects it, not timed\n", name.c_str());
      std::printf("%s\t%zu\t-\trejected\t0\t0\n", name.c_str(), bytes.size());
      std::fflush(stdout);
      continue;
    }
    Timing t = measure(bytes, warm_up_s, measure_s, samples);
    std::printf("%s\t%zu\t%.3f\tok\t%llu\t%llu\n", name.c_str(), bytes.size(), t.median_ns,
                static_cast<unsigned long long>(t.samples),
                static_cast<unsigned long long>(t.iterations));
    std::fflush(stdout);
  }
  return status;
}
