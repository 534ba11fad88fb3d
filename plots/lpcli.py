# SPDX-License-Identifier: MIT
"""lpcli: what the Python tools share as programs: the version, the option table for the man
page and bash completion (LP_HELP_FORMAT, as the C tools' common/opt.h), one-line errors with
the exit codes of DESIGN.md, and writing an output file whole or not at all."""
import os
import sys
import tempfile

import lpdoc

EXIT_FAIL = 1  # a runtime failure: an output that could not be written


class OutputError(Exception):
    """An output file that could not be written: one line, exit EXIT_FAIL."""


def version():
    """The version `make install` put into the data directory above these modules
    (PREFIX/share/linkperf/version), or in a source tree the release in VERSION."""
    here = lpdoc.here()
    for path in (os.path.join(here, "..", "version"), os.path.join(here, "..", "VERSION")):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            pass
    return "unknown"


def _roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def print_table(ap, fmt):
    """LP_HELP_FORMAT=man: the roff OPTIONS section; =bash: the words for completion."""
    opts = [a for a in ap._actions if a.option_strings]
    if fmt == "bash":
        words = [w for a in opts for w in a.option_strings]
        cmds = [c for a in ap._actions if a.choices and not a.option_strings for c in a.choices]
        print("words:", " ".join(cmds + words))
        print("takes:", " ".join(w for a in opts if a.nargs != 0 for w in a.option_strings))
        return
    print(".SH OPTIONS")
    for a in opts:
        arg = "" if a.nargs == 0 else " \\fI%s\\fR" % _roff(a.metavar or a.dest.upper())
        print(".TP")
        print(", ".join("\\fB%s\\fR" % _roff(w) for w in a.option_strings) + arg)
        print(_roff(a.help or ""))
    print('.\\" end of options')


def help_table(ap):
    """Prints the table and returns True when the build asks for it (make man, completions)."""
    fmt = os.environ.get("LP_HELP_FORMAT")
    if fmt in ("man", "bash") and {"-h", "--help"} & set(sys.argv[1:]):
        print_table(ap, fmt)
        return True
    return False


def write_bytes(path, data):
    """path holds data whole, or is left as it was (a temporary file renamed over it)."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".lp-", dir=d)
    except OSError as e:
        raise OutputError(f"{path}: cannot write: {e.strerror}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise OutputError(f"{path}: cannot write: {e.strerror}")


def run(prog, main):
    """main() with every expected failure as one line on stderr and its exit code."""
    try:
        sys.exit(main() or 0)
    except lpdoc.DocError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        sys.exit(e.code)
    except OutputError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        sys.exit(EXIT_FAIL)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        sys.exit(130)
