#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check an Apptainer/Singularity definition file as far as this machine allows (no apptainer
in Debian 12): the header, the sections and their shell syntax, and that %post installs the
.deb files %files copies in. `defcheck.py FILE` checks (exit 0, or 1 with one line per
problem); `defcheck.py FILE SECTION` prints that section's body (e.g. post)."""
import re
import subprocess
import sys

HEADER_KEYS = {"Bootstrap", "From", "OSVersion", "MirrorURL", "Include", "Stage", "Registry",
               "Namespace", "Fingerprints", "SetOpt", "Confdir", "Updateurl", "Product", "User"}
AGENTS = {"debootstrap", "docker", "library", "localimage", "oras", "scratch", "yum", "zypper",
          "busybox", "shub", "docker-daemon", "docker-archive", "oci", "oci-archive", "arch"}
SECTIONS = {"setup", "files", "post", "environment", "runscript", "startscript", "test",
            "labels", "help", "arguments"}
SHELL = {"setup", "post", "environment", "runscript", "startscript", "test"}
REQUIRED = {"files", "post", "environment", "runscript", "test", "labels", "help"}


def parse(text):
    """(header dict, [(section, body)]) or raise ValueError."""
    header, sections, cur = {}, [], None
    lines = text.splitlines()
    first = next((l for l in lines if l.strip()), "")
    if not re.match(r"Bootstrap:\s*\S", first):
        raise ValueError("the first line is not 'Bootstrap: AGENT'")
    for n, line in enumerate(lines, 1):
        m = re.match(r"%(\w+)\b(.*)", line)
        if m:
            cur = [m.group(1), []]
            sections.append(cur)
        elif cur is not None:
            cur[1].append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            k, sep, v = line.partition(":")
            if not sep or k.strip() not in HEADER_KEYS:
                raise ValueError(f"line {n}: not a header keyword: {line.strip()}")
            header[k.strip()] = v.strip()
    return header, [(s, "\n".join(b)) for s, b in sections]


def problems(text):
    try:
        header, sections = parse(text)
    except ValueError as e:
        return [str(e)]
    out = []
    if header["Bootstrap"] not in AGENTS:
        out.append(f"unknown bootstrap agent {header['Bootstrap']}")
    if header["Bootstrap"] == "debootstrap":
        out += [f"debootstrap needs {k}" for k in ("OSVersion", "MirrorURL") if k not in header]
    names = [s for s, _ in sections]
    out += [f"unknown section %{s}" for s in names if s not in SECTIONS]
    out += [f"section %{s} twice" for s in set(names) if names.count(s) > 1]
    out += [f"no %{s} section" for s in sorted(REQUIRED - set(names))]
    body = dict(sections)
    for s in SHELL & set(body):
        r = subprocess.run(["sh", "-n"], input=body[s], text=True, capture_output=True)
        if r.returncode:
            out.append(f"%{s}: shell syntax: {r.stderr.strip()}")
    dests = [l.split()[-1] for l in body.get("files", "").splitlines()
             if l.strip() and not l.strip().startswith("#")]
    post = body.get("post", "")
    if not any(re.search(re.escape(d) + r"/\*\.deb\b", post) for d in dests):
        out.append("%post installs no .deb from a directory %files copies in")
    if not re.search(r"apt-get install\b[^\n]*(\\\n[^\n]*)*\brdma-core\b", post):
        out.append("%post does not install rdma-core")
    for tool in ("lp-rdma", "lp-sweep", "lp-plot"):
        if tool not in body.get("test", ""):
            out.append(f"%test does not run {tool}")
    for word in ("--nv", "/dev/infiniband", "lp-sweep"):
        if word not in body.get("help", ""):
            out.append(f"%help does not show {word}")
    return out


def main():
    text = open(sys.argv[1]).read()
    if len(sys.argv) > 2:
        print(dict(parse(text)[1]).get(sys.argv[2], ""))
        return 0
    out = problems(text)
    for p in out:
        print(f"{sys.argv[1]}: {p}")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
