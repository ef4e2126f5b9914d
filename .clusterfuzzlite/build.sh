#!/bin/bash -eu
# ClusterFuzzLite's build: the same script as OSS-Fuzz's, from the copied checkout.
exec "$SRC/flatmodel/fuzz/oss-fuzz/build.sh"
