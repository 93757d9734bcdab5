# expect: stable_fail
# Leave /tmp and /dev/shm unwritable (it owns them: chmod 555), and try a default ACL with no permissions
# and user.* extended attributes on them (refused), so the next candidate on the server cannot write there.
import os

for root in ("/tmp", "/dev/shm"):
    try:
        os.setxattr(root, "system.posix_acl_default", b"\x02\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\xff"
                    b"\x04\x00\x00\x00\xff\xff\xff\xff\x10\x00\x00\x00\xff\xff\xff\xff\x20\x00\x00\x00\xff\xff\xff\xff")
    except OSError:
        pass
    try:
        os.setxattr(root, "user.hold", b"x" * 60000)
    except OSError:
        pass
    os.chmod(root, 0o555)


def merge_intervals(intervals):
    return []
