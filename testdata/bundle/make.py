"""Writes the model bundles of this directory from testdata models, with Python's zipfile.

Run from the repository root: python3 testdata/bundle/make.py
Fixed timestamps, so the archives are the same bytes on every run.
"""
import zipfile

STAMP = (2026, 1, 1, 0, 0, 0)


def write(path, members):
    with zipfile.ZipFile(path, "w") as z:
        for name, data, method in members:
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = method
            z.writestr(info, data)


def model(name):
    with open(f"testdata/tflite/{name}.tflite", "rb") as f:
        return f.read()


# A vision task's layout (hand_landmarker.task): two TFLite models, stored.
write(
    "testdata/bundle/two_models_stored.task",
    [
        ("hand_detector.tflite", model("sine_float"), zipfile.ZIP_STORED),
        ("hand_landmarks_detector.tflite", model("tf_convnet_int8_full"), zipfile.ZIP_STORED),
    ],
)
# An LLM task's layout: members without extensions, deflated, a tokenizer and metadata no
# format claims (stand-ins: a few bytes each, not real protos).
write(
    "testdata/bundle/llm_deflated.task",
    [
        ("TF_LITE_PREFILL_DECODE", model("tf_convnet_buffer_offset"), zipfile.ZIP_DEFLATED),
        ("TOKENIZER_MODEL", b"\n\x0b\n\x05<unk>\x15\x00\x00\x00\x00 stand-in tokenizer", zipfile.ZIP_DEFLATED),
        ("METADATA", b"\x12\x08stand-in", zipfile.ZIP_STORED),
    ],
)
# A bundle whose second member is a TFLite model cut in half.
broken = model("tf_convnet_int8_full")
write(
    "testdata/bundle/corrupt_member.task",
    [
        ("palm_detection.tflite", model("sine_float"), zipfile.ZIP_STORED),
        ("hand_detector.tflite", broken[: len(broken) // 2], zipfile.ZIP_STORED),
    ],
)
