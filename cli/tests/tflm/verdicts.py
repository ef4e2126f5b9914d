"""TensorFlow Lite Micro's verdict on each model file, for cli/tests/cli/tflm_agreement.rs.

Each file is loaded in a process of its own (TFLite Micro crashes on some malformed models):
`python3 verdicts.py FILE...` prints one JSON line per file, {"file", "verdict", "log"}, where
verdict is "ok" (the interpreter was built, its tensors allocated), "refused" (it raised) or
"crashed" (the process died of a signal). "log" is what TFLite Micro printed; for a model it
loads, it ends with the allocator's record (`print_allocations`), whose "Arena allocation head"
is what its greedy memory planner gave the activations.
"""
import json
import subprocess
import sys


def load(path):
    from tflite_micro import runtime

    interpreter = runtime.Interpreter.from_file(path, arena_size=64 << 20)
    sys.stdout.flush()
    interpreter.print_allocations()


def main(files):
    for path in files:
        child = subprocess.run([sys.executable, __file__, "--one", path], capture_output=True, text=True)
        log = (child.stdout + child.stderr)[-8000:]
        if child.returncode == 0:
            verdict = "ok"
        elif child.returncode == 3:
            verdict = "refused"
        else:
            verdict = "crashed"
        print(json.dumps({"file": path, "verdict": verdict, "log": log}), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        try:
            load(sys.argv[2])
        except Exception as e:  # TFLite Micro reports every refusal as an exception
            print(f"{type(e).__name__}: {e}")
            sys.exit(3)
    else:
        main(sys.argv[1:])
