#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# fuse-stall.py MOUNTPOINT PID: a FUSE server that answers every process but PID, and
# never answers PID (the attacker of issue 13, PID being umbrellad). It mounts itself on
# MOUNTPOINT (as "fuse", default_permissions, no caching: every look-up and permission
# check asks it), shows an empty directory "x" in its root, and writes "ready" to stdout
# once INIT is answered. Speaks the raw protocol
# of <linux/fuse.h>: no libfuse in the VM. Runs until killed; killing it aborts the
# connection, and whatever waits on it fails.
import ctypes
import errno
import os
import stat
import struct
import sys

mountpoint, ignored_pid = sys.argv[1], int(sys.argv[2])

IN_HEADER = struct.Struct("<IIQQIIIHH")  # len opcode unique nodeid uid gid pid extlen pad
OUT_HEADER = struct.Struct("<IiQ")  # len error unique
LOOKUP, FORGET, GETATTR, STATFS, GETXATTR, LISTXATTR = 1, 2, 3, 17, 22, 23
INIT, OPENDIR, READDIR, RELEASEDIR, ACCESS, INTERRUPT = 26, 27, 28, 29, 34, 36
DESTROY, BATCH_FORGET, READDIRPLUS = 38, 42, 44
ROOT, X = 1, 2

fd = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
libc = ctypes.CDLL(None, use_errno=True)
opts = "fd=%d,rootmode=40000,user_id=0,group_id=0,default_permissions" % fd
if libc.mount(b"stall", mountpoint.encode(), b"fuse", 0, opts.encode()) != 0:
    e = ctypes.get_errno()
    sys.exit("mount %s: %s" % (mountpoint, os.strerror(e)))


def attr(nodeid):
    # ino size blocks atime mtime ctime atimensec mtimensec ctimensec mode nlink uid
    # gid rdev blksize flags
    return struct.pack("<QQQQQQIIIIIIIIII", nodeid, 0, 0, 0, 0, 0, 0, 0, 0,
                       stat.S_IFDIR | 0o755, 2, 0, 0, 0, 4096, 0)


def reply(unique, error=0, body=b""):
    os.write(fd, OUT_HEADER.pack(OUT_HEADER.size + len(body), -error, unique) + body)


while True:
    try:
        req = os.read(fd, 1 << 20 | 4096)
    except OSError as e:
        if e.errno in (errno.EINTR, errno.ENOENT, errno.EAGAIN):
            continue
        sys.exit(0)  # ENODEV: unmounted
    length, opcode, unique, nodeid, uid, gid, pid, _, _ = IN_HEADER.unpack_from(req)
    arg = req[IN_HEADER.size:length]
    if opcode in (FORGET, BATCH_FORGET, INTERRUPT):
        continue  # no answer expected
    if pid == ignored_pid:
        continue  # never answered: the caller waits
    if opcode == INIT:
        # major minor max_readahead flags max_background congestion_threshold max_write
        # time_gran max_pages map_alignment flags2, then unused up to 64 bytes
        body = struct.pack("<IIIIHHIIHHI", 7, 31, 0, 0, 16, 12, 4096, 1, 1, 0, 0)
        reply(unique, 0, body.ljust(64, b"\0"))
        print("ready", flush=True)
    elif opcode == GETATTR:
        # attr_valid attr_valid_nsec dummy attr: valid for no time at all
        reply(unique, 0, struct.pack("<QII", 0, 0, 0) + attr(nodeid))
    elif opcode == LOOKUP:
        if nodeid == ROOT and arg.rstrip(b"\0") == b"x":
            # nodeid generation entry_valid attr_valid entry_nsec attr_nsec attr
            reply(unique, 0, struct.pack("<QQQQII", X, 0, 0, 0, 0, 0) + attr(X))
        else:
            reply(unique, errno.ENOENT)
    elif opcode == STATFS:
        # blocks bfree bavail files ffree bsize namelen frsize padding spare[6]
        reply(unique, 0, struct.pack("<QQQQQIIII24x", 0, 0, 0, 0, 0, 4096, 255, 4096, 0))
    elif opcode in (GETXATTR, LISTXATTR):
        reply(unique, errno.ENODATA)
    elif opcode == OPENDIR:
        reply(unique, 0, struct.pack("<QII", 0, 0, 0))
    elif opcode in (READDIR, READDIRPLUS):
        reply(unique, 0)  # empty: "x" is found by look-up only
    elif opcode in (RELEASEDIR, DESTROY):
        reply(unique, 0)
    else:
        reply(unique, errno.ENOSYS)
