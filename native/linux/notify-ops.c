/*
 * notify-ops.c — the metadata syscalls the supervisor answers (metadata.h):
 * where each keeps its arguments, copying them out of the blocked task, and
 * performing the call on a descriptor beneath a write root.
 *
 * One table row per syscall: the *at, f* and l* variants differ only in
 * where the object comes from (a path relative to a dirfd, an fd, whether a
 * trailing symlink is followed), which the row says; the call itself is one
 * of seven kinds (the two newest: a file's attribute flags — chattr(1)'s
 * nodump, noatime, sync… — set through ioctl(2) or file_setattr(2)). The kernel's own argument checks are kept where they decide
 * between an error and an action (flags, sizes); the rest — permission,
 * ownership, values — is left to the kernel when the supervisor performs the
 * call with the command's credentials.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include "metadata.h"

/* Newer than the C library's headers; one number on every architecture
 * since Linux 5.1 (seccomp-compile.c). */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469 /* Linux 6.17 */
#endif

/* The filter kills any other architecture (its bad-arch action): a
 * notification from one would be a filter we did not compile. */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "cordon: the metadata filter needs this architecture's AUDIT_ARCH"
#endif

enum md_kind { K_CHMOD, K_CHOWN, K_UTIME, K_UTIMES, K_UTIMENS, K_SETXATTR, K_SETXATTRAT, K_REMOVEXATTR, K_IOCTL, K_FILE_SETATTR };

#define NONE (-1)
#define AT_OK (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) /* flags the *at calls below accept */

struct md_syscall {
  int nr;
  enum md_kind kind;
  signed char fd;       /* argument holding the dirfd or fd; NONE: AT_FDCWD */
  signed char path;     /* argument holding the path; NONE: acts on fd */
  signed char flags;    /* argument holding AT_* flags; NONE: no flags */
  unsigned char follow; /* without flags: follows a trailing symlink */
  unsigned char null_fd;/* a NULL path acts on fd (futimesat, utimensat) */
  unsigned char arg;    /* first argument of the kind: mode, uid, times, name */
};

static const struct md_syscall calls[] = {
#ifdef __NR_chmod /* x86_64; the generic table (aarch64) has only the *at calls */
  {__NR_chmod, K_CHMOD, NONE, 0, NONE, 1, 0, 1},
  {__NR_chown, K_CHOWN, NONE, 0, NONE, 1, 0, 1},
  {__NR_lchown, K_CHOWN, NONE, 0, NONE, 0, 0, 1},
  {__NR_utime, K_UTIME, NONE, 0, NONE, 1, 0, 1},
  {__NR_utimes, K_UTIMES, NONE, 0, NONE, 1, 0, 1},
  {__NR_futimesat, K_UTIMES, 0, 1, NONE, 1, 1, 2},
#endif
  {__NR_fchmod, K_CHMOD, 0, NONE, NONE, 1, 0, 1},
  {__NR_fchmodat, K_CHMOD, 0, 1, NONE, 1, 0, 2}, /* no flags argument: always follows */
  {__NR_fchmodat2, K_CHMOD, 0, 1, 3, 1, 0, 2},
  {__NR_fchown, K_CHOWN, 0, NONE, NONE, 1, 0, 1},
  {__NR_fchownat, K_CHOWN, 0, 1, 4, 1, 0, 2},
  {__NR_utimensat, K_UTIMENS, 0, 1, 3, 1, 1, 2},
  {__NR_setxattr, K_SETXATTR, NONE, 0, NONE, 1, 0, 1},
  {__NR_lsetxattr, K_SETXATTR, NONE, 0, NONE, 0, 0, 1},
  {__NR_fsetxattr, K_SETXATTR, 0, NONE, NONE, 1, 0, 1},
  {__NR_setxattrat, K_SETXATTRAT, 0, 1, 2, 1, 0, 3},
  {__NR_removexattr, K_REMOVEXATTR, NONE, 0, NONE, 1, 0, 1},
  {__NR_lremovexattr, K_REMOVEXATTR, NONE, 0, NONE, 0, 0, 1},
  {__NR_fremovexattr, K_REMOVEXATTR, 0, NONE, NONE, 1, 0, 1},
  {__NR_removexattrat, K_REMOVEXATTR, 0, 1, 2, 1, 0, 3},
  /* Only FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR reach the supervisor (the
   * filter compares the command word): every other ioctl runs untouched. */
  {__NR_ioctl, K_IOCTL, 0, NONE, NONE, 1, 0, 1},
  {__NR_file_setattr, K_FILE_SETATTR, 0, 1, 4, 1, 0, 2},
};

/* The kernel's argument structs on a 64-bit architecture. */
struct k_utimbuf { int64_t actime, modtime; };
struct k_timeval { int64_t sec, usec; };
struct k_timespec { int64_t sec, nsec; };
struct k_xattr_args { uint64_t value; uint32_t size, flags; }; /* setxattrat, XATTR_ARGS_SIZE_VER0 */
/* file_setattr(2)'s struct file_attr, FILE_ATTR_SIZE_VER0 (Linux 6.17). */
struct k_file_attr { uint64_t xflags; uint32_t extsize, nextents, projid, cowextsize; };

/* Where (md_call) and what: the supervisor's own copies of everything. */
struct op {
  struct md_call at;
  mode_t mode;
  uid_t uid;
  gid_t gid;
  const struct timespec *times; /* NULL: now */
  struct timespec ts[2];
  char name[XATTR_NAME_MAX + 1];
  size_t size;
  int xflags;
  unsigned cmd;          /* K_IOCTL: FS_IOC_SETFLAGS or FS_IOC_FSSETXATTR */
  int attr_flags;        /* FS_IOC_SETFLAGS: an int, whatever the macro's `long` says */
  struct fsxattr fsx;    /* FS_IOC_FSSETXATTR */
  struct k_file_attr fa; /* file_setattr */
};
static char value[XATTR_SIZE_MAX]; /* one notification at a time */
static struct op op;               /* PATH_MAX inside: not on the stack */

static const struct md_syscall *lookup(int nr) {
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
    if (calls[i].nr == nr) return &calls[i];
  return NULL;
}

/* The object: a path (copied), or the fd itself. */
static int take_path(const struct md_target *t, const struct md_syscall *sc, const struct seccomp_data *d, unsigned flags) {
  struct md_call *c = &op.at;
  uint64_t addr = sc->path == NONE ? 0 : d->args[(int)sc->path];
  c->on_fd = sc->path == NONE;
  if (c->on_fd) return c->fd < 0 ? EBADF : 0; /* fchmod(AT_FDCWD): a bad fd, as the kernel says */
  if (addr == 0 && sc->null_fd) {
    /* futimens(3): utimensat(fd, NULL, times, 0); flags and AT_FDCWD are errors then */
    c->on_fd = 1;
    return flags ? EINVAL : c->fd == AT_FDCWD ? EFAULT : 0;
  }
  int err = md_read_str(t, addr, c->path, sizeof c->path, ENAMETOOLONG);
  if (err || c->path[0]) return err;
  c->on_fd = (flags & AT_EMPTY_PATH) != 0; /* "": the dirfd itself, with AT_EMPTY_PATH only */
  return c->on_fd ? 0 : ENOENT;
}

static int take_times(const struct md_target *t, enum md_kind kind, uint64_t addr) {
  struct k_utimbuf u;
  struct k_timeval tv[2];
  struct k_timespec ts[2];
  int err = 0;
  op.times = NULL;
  if (addr == 0) return 0; /* NULL: both times now */
  if (kind == K_UTIME && !(err = md_read(t, addr, &u, sizeof u)))
    op.ts[0] = (struct timespec){u.actime, 0}, op.ts[1] = (struct timespec){u.modtime, 0};
  if (kind == K_UTIMES && !(err = md_read(t, addr, tv, sizeof tv))) {
    for (int i = 0; i < 2; i++) {
      if (tv[i].usec < 0 || tv[i].usec >= 1000000) return EINVAL; /* utimes(2) */
      op.ts[i] = (struct timespec){tv[i].sec, tv[i].usec * 1000};
    }
  }
  if (kind == K_UTIMENS && !(err = md_read(t, addr, ts, sizeof ts)))
    for (int i = 0; i < 2; i++) op.ts[i] = (struct timespec){ts[i].sec, ts[i].nsec}; /* UTIME_NOW/OMIT pass through */
  op.times = err ? NULL : op.ts;
  return err;
}

static int take_value(const struct md_target *t, uint64_t addr, uint64_t size, uint64_t flags) {
  if (size > XATTR_SIZE_MAX) return E2BIG; /* setxattr(2) */
  op.size = (size_t)size;
  op.xflags = (int)flags;
  return md_read(t, addr, value, op.size);
}

static int take_xattr(const struct md_target *t, const struct md_syscall *sc, const struct seccomp_data *d) {
  const __u64 *a = d->args + sc->arg;
  struct k_xattr_args xa;
  /* An empty or over-long name is ERANGE (setxattr(2)). */
  int err = md_read_str(t, a[0], op.name, sizeof op.name, ERANGE);
  if (err || !op.name[0]) return err ? err : ERANGE;
  if (sc->kind == K_SETXATTR) return take_value(t, a[1], a[2], a[3]);
  if (sc->kind != K_SETXATTRAT) return 0;
  /* A larger struct is a newer ABI whose extra fields we cannot honour: refuse it. */
  if (a[2] != sizeof xa) return a[2] < sizeof xa ? EINVAL : E2BIG;
  if ((err = md_read(t, a[1], &xa, sizeof xa))) return err;
  return take_value(t, xa.value, xa.size, xa.flags);
}

/* ioctl(fd, cmd, arg): the kernel reads cmd as an unsigned int (ioctl(2)),
 * so only its low 32 bits name the request; the filter compares them so. */
static int take_ioctl(const struct md_target *t, const __u64 *a) {
  op.cmd = (unsigned)a[0];
  if (op.cmd == FS_IOC_SETFLAGS) return md_read(t, a[1], &op.attr_flags, sizeof op.attr_flags);
  if (op.cmd == FS_IOC_FSSETXATTR) return md_read(t, a[1], &op.fsx, sizeof op.fsx);
  return EPERM; /* not a request this filter traps: never performed on the command's behalf */
}

/* file_setattr(dfd, path, attr, size, at_flags): a larger struct is a newer
 * ABI whose extra fields we cannot honour — refused, as for setxattrat. */
static int take_file_attr(const struct md_target *t, const __u64 *a) {
  if (a[1] != sizeof op.fa) return a[1] < sizeof op.fa ? EINVAL : E2BIG;
  return md_read(t, a[0], &op.fa, sizeof op.fa);
}

static int take_args(const struct md_target *t, const struct md_syscall *sc, const struct seccomp_data *d) {
  const __u64 *a = d->args + sc->arg;
  switch (sc->kind) {
    case K_CHMOD: op.mode = (mode_t)a[0]; return 0;
    case K_CHOWN: op.uid = (uid_t)a[0], op.gid = (gid_t)a[1]; return 0;
    case K_UTIME: case K_UTIMES: case K_UTIMENS: return take_times(t, sc->kind, a[0]);
    case K_IOCTL: return take_ioctl(t, a);
    case K_FILE_SETATTR: return take_file_attr(t, a);
    default: return take_xattr(t, sc, d);
  }
}

/* Copy everything the call needs out of the task, once. */
static int take(const struct md_target *t, const struct md_syscall *sc, const struct seccomp_data *d) {
  unsigned flags = sc->flags == NONE ? 0 : (unsigned)d->args[(int)sc->flags];
  op.at.kind = sc->kind;
  op.at.fd = sc->fd == NONE ? AT_FDCWD : (int)d->args[(int)sc->fd];
  if (flags & ~(unsigned)AT_OK) return EINVAL;
  op.at.follow = sc->flags == NONE ? sc->follow : !(flags & AT_SYMLINK_NOFOLLOW);
  int err = take_path(t, sc, d, flags);
  return err ? err : take_args(t, sc, d);
}

static int result(int rc) { return rc < 0 ? errno : 0; }

static int do_chmod(const char *self, const struct stat *st) {
  /* Set-id bits stay refused (the main filter's rules answer first; this
   * holds should they ever change): a setuid file planted in a write root
   * escalates whoever runs it later. */
  if (op.mode & (S_ISUID | S_ISGID)) return EPERM;
  /* fchmodat2(AT_SYMLINK_NOFOLLOW) on a symlink: Linux has no symlink modes. */
  if (S_ISLNK(st->st_mode)) return EOPNOTSUPP;
  return result(chmod(self, op.mode & 07777));
}

/* The attribute flags need a real open file (an O_PATH fd takes no ioctl).
 * Only a regular file or a directory is opened: opening a device or a FIFO
 * could itself act (a tape rewinds, a FIFO waits for a writer), and the
 * kernel has no attribute flags for them anyway. */
static int do_ioctl(const char *self, const struct stat *st) {
  if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) return ENOTTY;
  int fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno;
  int rc = ioctl(fd, op.cmd, op.cmd == FS_IOC_SETFLAGS ? (void *)&op.attr_flags : (void *)&op.fsx);
  int err = rc < 0 ? errno : 0;
  close(fd);
  return err;
}

/* file_setattr(2) refuses an O_PATH fd with AT_EMPTY_PATH (EBADF, measured
 * on Linux 6.18): the magic link reaches the same inode by path. */
static int do_file_setattr(const char *self, const struct stat *st) {
  if (S_ISLNK(st->st_mode)) return EOPNOTSUPP;
  return result((int)syscall(__NR_file_setattr, AT_FDCWD, self, &op.fa, sizeof op.fa, 0));
}

/* Perform the call on fd (O_PATH, beneath a write root). /proc/self/fd/N
 * reaches exactly that inode; AT_EMPTY_PATH acts on the fd itself, a
 * symlink included (lchown, utimensat with AT_SYMLINK_NOFOLLOW). */
static int perform(int fd, const struct stat *st) {
  char self[32];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  switch (op.at.kind) {
    case K_CHMOD: return do_chmod(self, st);
    case K_CHOWN: return result(fchownat(fd, "", op.uid, op.gid, AT_EMPTY_PATH));
    case K_UTIME: case K_UTIMES: case K_UTIMENS: return result(utimensat(fd, "", op.times, AT_EMPTY_PATH));
    case K_IOCTL: return do_ioctl(self, st);
    case K_FILE_SETATTR: return do_file_setattr(self, st);
    default: break;
  }
  /* xattrs on a symlink itself: user.* is refused there by the kernel, and
   * the trusted and security namespaces need capabilities the command lacks. */
  if (S_ISLNK(st->st_mode)) return EPERM;
  if (op.at.kind == K_REMOVEXATTR) return result(removexattr(self, op.name));
  return result(setxattr(self, op.name, value, op.size, op.xflags));
}

int md_answer(const struct md_target *t, const struct seccomp_data *d, const struct md_roots *roots) {
  const struct md_syscall *sc = lookup(d->nr);
  const char *rest;
  int base = -1;
  if (d->arch != NATIVE_ARCH) return ENOSYS;
  if (d->nr == __NR_connect) return md_connect(t, d, &roots->net);
  if (!sc) return ENOSYS;
  int err = take(t, sc, d);
  if (!err) err = md_open_base(t, &op.at, &base, &rest);
  /* Everything taken from the task is its own only if it is still blocked
   * in this very call (metadata.h, step 1). */
  if (!err && !md_still_waiting(t)) err = ESRCH;
  if (err) {
    if (base >= 0) close(base);
    return err;
  }
  struct stat st;
  int fd = md_resolve(roots, &op.at, base, rest, &st);
  if (fd < 0) return -fd;
  err = perform(fd, &st);
  close(fd);
  return err;
}
