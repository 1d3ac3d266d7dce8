"""What a worker process does to itself before it answers anything: it gives up the server's files.

Mechanisms, each applied when this machine has it, all reported (never silently claimed):

- process: the answerer runs in a fresh interpreter (exec, not fork), its environment reduced to
  an allow-list (no PARLEY_*, no keys, no tokens), every inherited descriptor above stderr closed.
- no_new_privs: prctl(PR_SET_NO_NEW_PRIVS); the worker can never gain privileges through exec.
- uid: when started as root, the worker drops to nobody (65534, no supplementary groups), so files
  only root may read (a 0600 store, the keys folder) are closed to it by plain permissions.
- landlock: Linux Landlock (kernel 5.13+, ABI 1-7 here through ctypes syscalls): the worker may
  read the Python installation, site-packages, the package's own source, the system libraries and
  the name-resolution/TLS configuration, read-only, and nothing else: no writes, no exec anywhere.
  ABI 4+: no TCP bind, and TCP connect only to the model endpoint's port (none for the
  deterministic answerer). ABI 6+: no signals or abstract unix sockets outside its own domain.

Fail closed: a mechanism this kernel offers but that fails to apply stops the worker (it answers
nothing, so every question escalates). A mechanism the kernel does not offer (no Landlock, not
root) is reported as inactive and the pool logs one warning: the worker still runs in its own
process with a scrubbed environment, and `isolation()` says exactly what holds.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path

NOBODY = 65534
KEEP_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR")
PROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")

# Landlock (include/uapi/linux/landlock.h)
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_FS_EXECUTE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 2, 1 << 3
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_PR_SET_NO_NEW_PRIVS = 38

SYSTEM_READ = (
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ssl",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/dev/urandom",
)


class SandboxError(RuntimeError):
    """A mechanism this machine offers could not be applied: the worker must not run."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers, 0 when it offers none (or is not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(
            _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
        )
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def available() -> dict[str, object]:
    """What a worker started from this process could apply; for `doctor` before any worker runs."""
    return {
        "process": True,
        "landlock": landlock_abi(),
        "drop_uid": hasattr(os, "geteuid") and os.geteuid() == 0,
    }


def scrubbed_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The worker's environment: locale, time zone and TLS/proxy settings without credentials; nothing else."""
    env = {k: environ[k] for k in KEEP_ENV if k in environ}
    env.update({k: environ[k] for k in PROXY_ENV if k in environ and "@" not in environ[k]})
    return env


def read_paths(extra: Iterable[str] = ()) -> list[str]:
    """The directories and files a landlocked worker may read: the Python installation and libraries."""
    package = (
        Path(__file__).resolve().parent.parent
    )  # the `server` package's source, never its data
    paths = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= {str(package), *SYSTEM_READ, *extra}
    for var in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        if os.environ.get(var):
            paths.add(os.environ[var])
    return sorted(p for p in paths if p and os.path.exists(p))


def close_inherited_fds(keep: Iterable[int] = ()) -> None:
    """Close every descriptor above stderr except `keep` (exec already dropped non-inheritable ones)."""
    keep = sorted({fd for fd in keep if fd > 2})
    start = 3
    for fd in [*keep, 1 << 16]:
        os.closerange(start, fd)
        start = fd + 1


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise SandboxError(f"landlock: {what} failed: {os.strerror(errno)}")
    return result


def _ruleset(
    paths: Iterable[str], connect_ports: Iterable[int], abi: int
) -> tuple[int, dict[str, object]]:
    """A Landlock ruleset allowing only reads of `paths` and TCP connects to `connect_ports`: (fd, report)."""
    libc = _libc()
    fs = (1 << 13) - 1  # ABI 1: EXECUTE … MAKE_SYM
    if abi >= 2:
        fs |= 1 << 13  # REFER
    if abi >= 3:
        fs |= 1 << 14  # TRUNCATE
    if abi >= 5:
        fs |= 1 << 15  # IOCTL_DEV
    attr = _RulesetAttr(handled_access_fs=fs)
    size = 8
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    ruleset = _check(
        libc.syscall(
            _SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
        ),
        "create_ruleset",
    )
    allowed = []
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                access = _FS_READ_FILE | (_FS_READ_DIR if os.path.isdir(path) else 0)
                rule = _PathBeneath(allowed_access=access, parent_fd=fd)
                _check(
                    libc.syscall(
                        _SYS_ADD_RULE,
                        ctypes.c_int(ruleset),
                        ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    ),
                    f"add_rule {path}",
                )
                allowed.append(path)
            finally:
                os.close(fd)
        ports = sorted(set(connect_ports)) if abi >= 4 else []
        for port in ports:
            port_rule = _NetPort(allowed_access=_NET_CONNECT_TCP, port=port)
            _check(
                libc.syscall(
                    _SYS_ADD_RULE,
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_RULE_NET_PORT),
                    ctypes.byref(port_rule),
                    ctypes.c_uint32(0),
                ),
                f"add_rule port {port}",
            )
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset, {
        "abi": abi,
        "read_only": allowed,
        "tcp_connect": ports if abi >= 4 else "unrestricted",
        "scoped": abi >= 6,
    }


def confine(connect_ports: Iterable[int] = (), extra_read: Iterable[str] = ()) -> dict[str, object]:
    """Apply every mechanism this machine offers to the calling process; return what holds.

    Call it once, from the worker's only thread, after everything the answerer needs is imported
    (a landlocked worker running as nobody may not be able to read a module it imports later)."""
    report: dict[str, object] = {
        "process": True,
        "env": "scrubbed",
        "no_new_privs": False,
        "uid": os.getuid(),
        "landlock": None,
    }
    resource.setrlimit(
        resource.RLIMIT_CORE, (0, 0)
    )  # no core file with the answerer's memory in it
    abi = landlock_abi()
    libc = _libc()
    ruleset, landlock = -1, None
    if abi > 0:  # paths are opened as the starting user, before anything is given up
        ruleset, landlock = _ruleset(read_paths(extra_read), connect_ports, abi)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SandboxError(f"prctl(NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    report["no_new_privs"] = True
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        if os.getuid() != NOBODY or os.geteuid() != NOBODY:
            raise SandboxError("could not drop to uid 65534")
        report["uid"] = NOBODY
    if ruleset >= 0:
        try:
            _check(
                libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)),
                "restrict_self",
            )
        finally:
            os.close(ruleset)
        report["landlock"] = landlock
    return report


def describe(report: Mapping[str, object] | None) -> str:
    """One line for `doctor` and the log: which mechanisms hold in the answering workers."""
    if not report:
        return "answering sandbox: no worker has started yet"
    parts = ["own process, scrubbed environment"]
    landlock = report.get("landlock")
    if isinstance(landlock, Mapping):
        net = landlock.get("tcp_connect")
        net_text = (
            "no TCP"
            if net == []
            else f"TCP only to port(s) {', '.join(map(str, net))}"
            if isinstance(net, list)
            else "TCP unrestricted (ABI < 4)"
        )
        parts.append(
            f"Landlock ABI {landlock.get('abi')} (read-only Python and system libraries, {net_text})"
        )
    if report.get("uid") == NOBODY:
        parts.append("uid 65534")
    if report.get("no_new_privs"):
        parts.append("no_new_privs")
    weak = (
        ""
        if isinstance(landlock, Mapping) or report.get("uid") == NOBODY
        else " - WARNING: no file-system isolation on this machine (no Landlock, not root)"
    )
    return "answering sandbox: " + ", ".join(parts) + weak
