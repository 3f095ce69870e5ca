#!/usr/bin/env python3
"""Runs the translated Firebase Auth Emulator spec cases and prints the per-file count as Markdown.

    HEARTH_BINARY=/path/to/hearth python3 tests/emulator_spec/count.py            # print the section
    HEARTH_BINARY=/path/to/hearth python3 tests/emulator_spec/count.py --update-doc  # also rewrite it in
                                                                                   # docs/COMPATIBILITY.md
    HEARTH_BINARY=/path/to/hearth python3 tests/emulator_spec/count.py --drop-fixed  # remove the xfail marker of
                                                                                   # every case that now passes

Counts come from a JUnit report of a real pytest run, never by hand. The spec's own case count per file is read
from a firebase-tools checkout when one is given (--spec-repo, a bare git directory or a work tree; it counts
`it(...)` calls, expanding helper functions that generate cases), else taken from the numbers recorded below.
"""
import argparse
import collections
import datetime
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DOC = os.path.join(ROOT, "docs", "COMPATIBILITY.md")
HEADING = "## Firebase Auth Emulator spec files"
DEFAULT_SPEC_REPO = "/work/.mirror/firebase+firebase-tools/repo"
SPEC_DIR = "src/emulator/auth"

# Cases per spec file in firebase-tools at commit a786bda73b48196fce1df22fe2b1cbc9e463b2d0 (2026-08-21), as this
# script counts them; used when no checkout is at hand.
RECORDED_COMMIT = "a786bda73b48196fce1df22fe2b1cbc9e463b2d0"
RECORDED = {"batch": 31, "cloudFunctions": 1, "config": 8, "createAuthUri": 12, "customToken": 11,
            "deleteAccount": 6, "emailLink": 22, "idp": 40, "mfa": 23, "misc": 36, "oob": 22, "passkey": 9,
            "password": 17, "phone": 21, "rest": 16, "setAccountInfo": 46, "signUp": 36, "tenant": 14}

IT_CALL = re.compile(r"\bit(?:\.skip|\.only)?\(")


def count_cases(source: str) -> int:
    """`it(` calls, where a function that defines a case (`function itShould…(…) { it(…) }`) counts once per call."""
    total = len(IT_CALL.findall(source))
    for name in set(re.findall(r"function\s+(it[A-Z]\w*)\s*\(", source)):
        body = re.search(r"function\s+" + name + r"\s*\([^)]*\)[^{]*\{(.*?)\n  \}", source, re.S)
        inside = len(IT_CALL.findall(body.group(1))) if body else 0
        calls = len(re.findall(r"^\s*" + name + r"\(", source, re.M))
        total += inside * (calls - 1)
    return total


def spec_counts(spec_repo: str | None):
    if spec_repo and os.path.isdir(spec_repo):
        git = ["git", "--git-dir", spec_repo] if not os.path.isdir(os.path.join(spec_repo, ".git")) else \
            ["git", "-C", spec_repo]
        try:
            commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True,
                                    check=True).stdout.strip()
            names = subprocess.run(git + ["ls-tree", "--name-only", "HEAD", SPEC_DIR + "/"], capture_output=True,
                                   text=True, check=True).stdout.split()
            counts = {}
            for path in names:
                m = re.match(re.escape(SPEC_DIR) + r"/(\w+)\.spec\.ts$", path)
                if m:
                    src = subprocess.run(git + ["show", f"HEAD:{path}"], capture_output=True, text=True,
                                         check=True).stdout
                    counts[m.group(1)] = count_cases(src)
            if counts:
                return counts, commit
        except (subprocess.CalledProcessError, FileNotFoundError):
            pass
    return dict(RECORDED), RECORDED_COMMIT


def run_pytest(extra: list[str]) -> ET.Element:
    with tempfile.TemporaryDirectory(prefix="hearth-spec-count-") as tmp:
        report = os.path.join(tmp, "report.xml")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", HERE, *extra]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if not os.path.exists(report):
            sys.stderr.write(done.stdout + done.stderr)
            sys.exit("pytest produced no report")
        return ET.parse(report).getroot()


def fixed_cases(root: ET.Element) -> list[tuple[str, str]]:
    """(module, test name) of the strict-xfail cases that passed (XPASS), i.e. behaviour that got fixed."""
    out = []
    for case in root.iter("testcase"):
        failure = case.find("failure")
        if failure is not None and "XPASS(strict)" in (failure.get("message") or ""):
            out.append((case.get("classname", "").split(".")[-1], case.get("name", "").split("[")[0]))
    return out


def drop_markers(cases: list[tuple[str, str]]):
    """Deletes the `@xfail(...)` decorator (one or more lines) right above each case's `def`."""
    by_module = collections.defaultdict(set)
    for module, name in cases:
        by_module[module].add(name)
    for module, names in by_module.items():
        path = os.path.join(HERE, module + ".py")
        with open(path) as f:
            lines = f.read().split("\n")
        for name in names:
            at = next(i for i, line in enumerate(lines) if line.startswith(f"def {name}("))
            start = at - 1
            while start >= 0 and not lines[start].startswith("@xfail("):
                if not lines[start].startswith((" ", "\t")):
                    start = -1
                    break
                start -= 1
            if start >= 0:
                del lines[start:at]
        with open(path, "w") as f:
            f.write("\n".join(lines))


def tally(root: ET.Element):
    rows = collections.defaultdict(lambda: collections.Counter())
    reasons = collections.Counter()
    for case in root.iter("testcase"):
        module = case.get("classname", "").split(".")[-1]
        if not module.startswith("test_"):
            continue
        spec = module[len("test_"):]
        row = rows[spec]
        row["translated"] += 1
        skipped = case.find("skipped")
        if case.find("failure") is not None or case.find("error") is not None:
            row["failing"] += 1
        elif skipped is not None and skipped.get("type") == "pytest.xfail":
            row["xfail"] += 1
            reasons[skipped.get("message") or "?"] += 1
        elif skipped is not None:
            row["skipped"] += 1
        else:
            row["passing"] += 1
    return rows, reasons


def render(rows, reasons, spec, commit, command) -> str:
    names = sorted(set(spec) | set(rows), key=str.lower)
    out = [HEADING, "",
           "The Auth Emulator's own spec files (firebase-tools `src/emulator/auth/*.spec.ts`, commit "
           f"`{commit[:12]}`), translated case by case into pytest cases against `hearth serve --emulator` "
           "(`tests/emulator_spec/`, see its README). A case Hearth fails today is marked `xfail` with what Hearth "
           "does instead; *skipped* cases are not applicable to Hearth (the Functions emulator's "
           "dispatch, a start-up switch) or skipped in the spec itself.", "",
           f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `{command}`.", "",
           "| spec file | cases in the spec | translated | passing | xfail | skipped | failing |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    total = collections.Counter()
    for name in names:
        r = rows.get(name, collections.Counter())
        n = spec.get(name, 0)
        total["spec"] += n
        for k in ("translated", "passing", "xfail", "skipped", "failing"):
            total[k] += r[k]
        out.append(f"| `{name}.spec.ts` | {n} | {r['translated']} | {r['passing']} | {r['xfail']} | "
                   f"{r['skipped']} | {r['failing']} |")
    applicable = total["translated"] - total["skipped"]
    out.append(f"| **total** | **{total['spec']}** | **{total['translated']}** | **{total['passing']}** | "
               f"**{total['xfail']}** | **{total['skipped']}** | **{total['failing']}** |")
    pct = 100.0 * total["passing"] / applicable if applicable else 0.0
    out += ["", f"{total['passing']} of {applicable} applicable cases pass ({pct:.0f}%).", "",
            "What the xfail cases wait for, grouped by the fix that would turn them green (a case is listed under "
            "the first thing it fails on; fixing it may uncover the next):", "",
            "| fix | cases | what Hearth does instead |", "| --- | ---: | --- |"]
    groups = collections.defaultdict(collections.Counter)
    for reason, n in reasons.items():
        groups[reason.split(":", 1)[0].strip()][reason] += n
    for group, members in sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
        details = "; ".join(f"{r.split(':', 1)[1].strip() if ':' in r else r} ({n})" if len(members) > 1
                            else (r.split(":", 1)[1].strip() if ":" in r else r)
                            for r, n in members.most_common())
        out.append(f"| {group} | {sum(members.values())} | {details.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def update_doc(section: str):
    with open(DOC) as f:
        text = f.read()
    start = text.find(HEADING)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = re.search(r"^## ", text[start + len(HEADING):], re.M)
        end = start + len(HEADING) + nxt.start() if nxt else len(text)
        text = text[:start] + section + ("\n" if nxt else "") + text[end:]
    with open(DOC, "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec-repo", default=DEFAULT_SPEC_REPO, help="firebase-tools checkout or bare git dir")
    parser.add_argument("--update-doc", action="store_true", help="rewrite the section in docs/COMPATIBILITY.md")
    parser.add_argument("--drop-fixed", action="store_true",
                        help="remove the xfail marker of every case that now passes (XPASS), then count again")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments")
    args = parser.parse_args()
    spec, commit = spec_counts(args.spec_repo)
    root = run_pytest(args.pytest_args)
    if args.drop_fixed:
        fixed = fixed_cases(root)
        drop_markers(fixed)
        print(f"removed the xfail marker of {len(fixed)} case(s) that now pass", file=sys.stderr)
        if fixed:
            root = run_pytest(args.pytest_args)
    rows, reasons = tally(root)
    command = "HEARTH_BINARY=<hearth> python3 tests/emulator_spec/count.py --update-doc"
    section = render(rows, reasons, spec, commit, command)
    print(section)
    if args.update_doc:
        update_doc(section)


if __name__ == "__main__":
    main()
