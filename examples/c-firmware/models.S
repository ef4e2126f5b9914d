/* The models in flash, as a firmware would hold them: the bytes of testdata's files, aligned as
 * a flatbuffer's largest scalars need (the verifier checks alignment). The Makefile adds
 * testdata/ to the assembler's include path. */
    .section .rodata.models, "a"

    .balign 16
    .global sine_tflite, sine_tflite_end
sine_tflite:
    .incbin "tflite/sine_float.tflite"
sine_tflite_end:

    .balign 16
    .global sine_circle, sine_circle_end
sine_circle:
    .incbin "circle/c010_sine_float.circle"
sine_circle_end:
