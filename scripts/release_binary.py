"""The `hearth` binary the benchmark scripts measure: by default what scripts/build-release makes and deploys
(static Swift runtime, function sections, laid out by linker/hearth.order), so a benchmark never measures a
build that nobody ships."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_binary(binary=None, scratch_path=None, build=True, log=print):
    """`binary` if given; else scripts/build-release's output in the scratch path (built first unless `build` is
    false). The scratch path defaults to $HEARTH_SCRATCH_PATH, then .build."""
    if binary:
        return os.path.abspath(binary)
    scratch = os.path.join(ROOT, scratch_path or os.environ.get("HEARTH_SCRATCH_PATH", ".build"))
    out = os.path.join(scratch, "dist", "hearth-measured")
    if build:
        log("building release (scripts/build-release)")
        subprocess.run([os.path.join(ROOT, "scripts", "build-release"), out], check=True, cwd=ROOT,
                       env={**os.environ, "HEARTH_SCRATCH_PATH": scratch})
    if not os.path.exists(out):
        raise SystemExit(f"no release build at {out}: make one with scripts/build-release {out}, or name a binary")
    return out
