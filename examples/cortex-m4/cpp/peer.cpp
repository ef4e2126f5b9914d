// The C++ peer of footprint.sh: flatbuffers' own generated verifier (`flatc --cpp` of the same
// schema flatmodel verifies) called on bytes the compiler cannot see, and nothing else. Built
// with -DPEER_HEADER and -DPEER_VERIFY naming the generated header and its Verify<Root>Buffer;
// without them, the empty firmware the sizes are measured against.
#include <cstddef>
#include <cstdint>

#ifdef PEER_HEADER
#include PEER_HEADER

static int peer_verify(const uint8_t *buf, size_t len) {
  flatbuffers::Verifier verifier(buf, len);
  return PEER_VERIFY(verifier);
}
#else
static int peer_verify(const uint8_t *, size_t len) { return len != 0; }
#endif

extern "C" void entry() {
  static const uint8_t *volatile input = nullptr;
  static volatile size_t length = 0;
  static volatile int result;
  result = peer_verify(input, length);
  for (;;) {
  }
}
