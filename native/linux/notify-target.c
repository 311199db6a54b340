/*
 * notify-target.c — what the supervisor takes from a task blocked in a
 * notification (metadata.h): copies of its arguments, and descriptors on
 * what its path is relative to.
 *
 * Everything here names the task by its thread id, which the kernel may
 * give to a new task as soon as this one dies (a SIGKILL from elsewhere
 * ends it mid-notification). So the caller takes all of it first and then
 * checks SECCOMP_IOCTL_NOTIF_ID_VALID (seccomp_unotify(2), "Caveats"): if
 * the notification is still pending, the task never exited and every copy
 * and descriptor taken before is its own. After that, nothing is read from
 * the task again: the supervisor works on its copies only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "metadata.h"

/* process_vm_readv(2): one call, no descriptor, and the same ptrace access
 * check as /proc/TID/mem (PTRACE_MODE_ATTACH_REALCREDS: the command is the
 * supervisor's descendant with its credentials; Yama ptrace_scope >= 2
 * refuses it, and then every call is answered EPERM — closed, not open). */
int md_read(const struct md_target *t, uint64_t addr, void *buf, size_t len) {
  struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
  if (len == 0) return 0;
  if (addr == 0) return EFAULT;
  ssize_t n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
  if (n == (ssize_t)len) return 0;
  return n < 0 && errno != EFAULT ? errno : EFAULT;
}

/* Read page by page: a string may end just before an unmapped page, which
 * a larger read would fail on (4096 divides every page size). */
int md_read_str(const struct md_target *t, uint64_t addr, char *buf, size_t cap, int too_long) {
  size_t got = 0;
  while (got < cap) {
    size_t page = 4096 - (size_t)((addr + got) & 4095), want = page < cap - got ? page : cap - got;
    int err = md_read(t, addr + got, buf + got, want);
    if (err) return err;
    if (memchr(buf + got, 0, want)) return 0;
    got += want;
  }
  return too_long;
}

int md_still_waiting(const struct md_target *t) {
  uint64_t id = t->id;
  return ioctl(t->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* An O_PATH fd on /proc/TID/<sub> with its magic link followed: the task's
 * cwd, or the file one of its descriptors refers to. O_PATH opens nothing
 * (no device open, no FIFO wait) and needs only PTRACE_MODE_READ. */
static int open_proc(const struct md_target *t, const char *sub, int fd, int *out) {
  char path[64];
  if (fd == AT_FDCWD) snprintf(path, sizeof path, "/proc/%d/%s", (int)t->tid, sub);
  else snprintf(path, sizeof path, "/proc/%d/%s/%d", (int)t->tid, sub, fd);
  *out = open(path, O_PATH | O_CLOEXEC);
  if (*out >= 0) return 0;
  /* No such descriptor in the task: what the kernel says for a bad fd. */
  return errno == ENOENT && fd != AT_FDCWD ? EBADF : errno;
}

/* Paths that name the calling task's own /proc entry. Resolved by the
 * supervisor they would name the supervisor's: they are taken relative to
 * /proc/TID instead (glibc's lchmod fallback before Linux 6.6 chmods
 * /proc/self/fd/N; bash hands out /dev/fd/N). Other spellings (/dev/stdin,
 * /proc/PID of the supervisor) resolve in the supervisor, which changes
 * nothing about the check: the object must still lie beneath a write root. */
static const struct { const char *prefix; const char *sub; } own_proc[] = {
  {"/proc/self/", "."}, {"/proc/thread-self/", "."}, {"/dev/fd/", "fd"},
};

int md_open_base(const struct md_target *t, const struct md_call *c, int *base, const char **rest) {
  *base = AT_FDCWD;
  *rest = c->path;
  if (c->on_fd) return open_proc(t, c->fd == AT_FDCWD ? "cwd" : "fd", c->fd, base);
  if (c->path[0] != '/') return open_proc(t, c->fd == AT_FDCWD ? "cwd" : "fd", c->fd, base);
  for (size_t i = 0; i < sizeof own_proc / sizeof *own_proc; i++) {
    size_t n = strlen(own_proc[i].prefix);
    if (strncmp(c->path, own_proc[i].prefix, n) != 0 || !c->path[n]) continue;
    *rest = c->path + n;
    return open_proc(t, own_proc[i].sub, AT_FDCWD, base);
  }
  return 0; /* absolute: the command's root is the supervisor's (chroot is refused, CAP_SYS_CHROOT dropped) */
}
