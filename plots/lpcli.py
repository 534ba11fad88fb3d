# SPDX-License-Identifier: MIT
"""lpcli: what the Python tools share as programs: the version, the option and exit tables for
the man page, --help and bash completion (LP_HELP_FORMAT, as the C tools' common/opt.h),
one-line errors with the exit codes of DESIGN.md (2 usage and bad input, 4 an output not
written), and writing an output file whole or not at all (as common/out.c)."""
import os
import stat
import sys
import tempfile

import lpdoc

EXIT_FAIL = 1  # a runtime failure (the judge failed)
EXIT_OUTPUT = 4  # an output or stdout not written: common/lp.h LP_EXIT_OUTPUT


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


def exit_epilog(codes):
    """The exit statuses as --help ends with them (the C tools' common/opt.h format)."""
    return "exit status:\n" + "".join(f"  {c:<4} {m}\n" for c, m in codes)


def print_table(ap, fmt, exits=()):
    """LP_HELP_FORMAT=man: the roff OPTIONS and EXIT STATUS sections; =bash: the words for
    completion (the commands, then the options)."""
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
    if exits:
        print(".SH EXIT STATUS")
        for c, m in exits:
            print(".TP\n.B %d\n%s" % (c, _roff(m)))
    print('.\\" end of options')


def help_table(ap, exits):
    """Prints the tables and returns True when the build asks for them (make man, completions)."""
    fmt = os.environ.get("LP_HELP_FORMAT")
    if fmt in ("man", "bash") and {"-h", "--help"} & set(sys.argv[1:]):
        print_table(ap, fmt, exits)
        return True
    return False


def output_failed(prog, what, why):
    """One line and exit EXIT_OUTPUT; what was printed so far still goes out where it can."""
    try:
        sys.stdout.flush()
    except OSError:
        pass
    sys.stderr.write(f"{prog}: cannot write {what}: {why}\n")
    sys.stderr.flush()
    os._exit(EXIT_OUTPUT)  # not sys.exit: the interpreter's last flush of stdout would fail again


def write_bytes(path, data, prog):
    """path holds data whole or is left as it was, as the C tools write (common/out.c): a
    temporary created exclusively beside it, fsync'ed and renamed over it. A symbolic link at
    path is refused (never followed nor replaced); a device (/dev/null) is written in place. A
    failure is one line and exit EXIT_OUTPUT."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        output_failed(prog, path, e.strerror)
    if st and stat.S_ISLNK(st.st_mode):
        output_failed(prog, path, "it is a symbolic link, not followed (name the file itself)")
    tmp = None
    try:
        if st and not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as f:
                f.write(data)
            return
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=os.path.dirname(path) or ".")
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        output_failed(prog, path, e.strerror)
    finally:
        if tmp:
            os.unlink(tmp)


def say(prog, line):
    """One line to stdout: a full disk or a closed pipe exits EXIT_OUTPUT, never 0."""
    try:
        print(line)
    except OSError as e:
        output_failed(prog, "standard output", e.strerror)


def run(prog, main):
    """main() with every expected failure as one line on stderr and its exit code; what it
    printed has reached stdout before exit 0."""
    try:
        rc = main() or 0
        sys.stdout.flush()
    except lpdoc.DocError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        rc = e.code
    except OSError as e:
        output_failed(prog, "standard output", e.strerror)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        rc = 130
    sys.exit(rc)
