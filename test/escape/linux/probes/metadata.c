/*
 * metadata.c — file-metadata changes (threat-model.md § Files): every
 * syscall variant of chmod, chown, utimes and the xattr family, called the
 * way the test names (a path, a dirfd and a name, an fd), and the attacks
 * on the supervisor that decides them in Landlock mode: a path rewritten
 * while the call is pending, a symlink or .. out of the write root, a
 * target killed mid-notification.
 *
 * Each call prints OK or the errno name. The test checks the effect on the
 * host itself (mode, times, xattr value), so an OK is never taken on trust.
 */
#include "probe.h"
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
#ifndef SYS_file_getattr
#define SYS_file_getattr 468 /* Linux 6.17 */
#endif
#ifndef SYS_file_setattr
#define SYS_file_setattr 469 /* Linux 6.17 */
#endif

#define STAMP 1000000000 /* the times the utimes family sets: 2001-09-09 */
#define XNAME "user.cordon"
#define XVALUE "probe"

static mode_t mode_arg(const char *s) { return (mode_t)strtol(s, NULL, 8); }

/* "0", "nofollow", "empty" or "nofollow,empty" */
static int at_flags(const char *s) {
  return (strstr(s, "nofollow") ? AT_SYMLINK_NOFOLLOW : 0) | (strstr(s, "empty") ? AT_EMPTY_PATH : 0);
}

static int open_or(const char *path, int flags) {
  int fd = open(path, flags | O_CLOEXEC);
  if (fd < 0) setup_failed("open");
  return fd;
}

/* ---- chmod ---- */
static int cmd_chmod(char **a) { return outcome(chmod(a[0], mode_arg(a[1]))); }
static int cmd_fchmod(char **a) {
  int fd = open_or(a[0], O_RDONLY);
  return fd < 0 ? 0 : outcome(fchmod(fd, mode_arg(a[1])));
}
static int cmd_fchmodat(char **a) {
  int dir = open_or(a[0], O_RDONLY | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(syscall(SYS_fchmodat, dir, a[1], mode_arg(a[2])));
}
static int cmd_fchmodat2(char **a) {
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(syscall(SYS_fchmodat2, dir, a[1], mode_arg(a[2]), at_flags(a[3])));
}
/* glibc's lchmod before Linux 6.6: an O_PATH fd, then chmod of its /proc/self/fd link. */
static int cmd_chmod_proc_fd(char **a) {
  char proc[64];
  int fd = open_or(a[0], O_PATH | O_NOFOLLOW);
  if (fd < 0) return 0;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return outcome(chmod(proc, mode_arg(a[1])));
}
/* A symlink planted in the writable root, pointing outside it, chmod'ed (chmod follows). */
static int cmd_chmod_symlink(char **a) {
  if (symlink(a[1], a[0]) < 0 && errno != EEXIST) return setup_failed("symlink");
  return outcome(chmod(a[0], mode_arg(a[2])));
}

/* ---- chown: to the caller's own group (all an unprivileged caller may pick); the ctime moves ---- */
static int cmd_chown(char **a) { return outcome(chown(a[0], (uid_t)-1, getegid())); }
static int cmd_lchown(char **a) { return outcome(lchown(a[0], (uid_t)-1, getegid())); }
static int cmd_fchown(char **a) {
  int fd = open_or(a[0], O_RDONLY);
  return fd < 0 ? 0 : outcome(fchown(fd, (uid_t)-1, getegid()));
}
static int cmd_fchownat(char **a) {
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(fchownat(dir, a[1], (uid_t)-1, getegid(), at_flags(a[2])));
}

/* ---- times ---- */
static int cmd_utime(char **a) {
  struct utimbuf u = {STAMP, STAMP};
  return outcome(utime(a[0], &u));
}
static int cmd_utimes(char **a) {
  struct timeval tv[2] = {{STAMP, 0}, {STAMP, 0}};
  return outcome(utimes(a[0], tv));
}
static int cmd_futimesat(char **a) {
  struct timeval tv[2] = {{STAMP, 0}, {STAMP, 0}};
  int dir = open_or(a[0], O_RDONLY | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(syscall(SYS_futimesat, dir, a[1], tv));
}
static int cmd_utimensat(char **a) {
  struct timespec ts[2] = {{STAMP, 0}, {STAMP, 0}};
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(utimensat(dir, a[1], ts, at_flags(a[2])));
}
/* futimens(3): utimensat(fd, NULL, times, 0). */
static int cmd_futimens(char **a) {
  struct timespec ts[2] = {{STAMP, 0}, {STAMP, 0}};
  int fd = open_or(a[0], O_RDONLY);
  return fd < 0 ? 0 : outcome(futimens(fd, ts));
}

/* ---- extended attributes ---- */
struct xattr_args_v0 { unsigned long long value; unsigned size, flags; };

static int cmd_setxattr(char **a) { return outcome(setxattr(a[0], XNAME, XVALUE, strlen(XVALUE), 0)); }
static int cmd_lsetxattr(char **a) { return outcome(lsetxattr(a[0], XNAME, XVALUE, strlen(XVALUE), 0)); }
static int cmd_fsetxattr(char **a) {
  int fd = open_or(a[0], O_RDONLY);
  return fd < 0 ? 0 : outcome(fsetxattr(fd, XNAME, XVALUE, strlen(XVALUE), 0));
}
static int cmd_setxattrat(char **a) {
  struct xattr_args_v0 args = {(unsigned long long)(uintptr_t)XVALUE, (unsigned)strlen(XVALUE), 0};
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(syscall(SYS_setxattrat, dir, a[1], at_flags(a[2]), XNAME, &args, sizeof args));
}
static int cmd_removexattr(char **a) { return outcome(removexattr(a[0], XNAME)); }
static int cmd_lremovexattr(char **a) { return outcome(lremovexattr(a[0], XNAME)); }
static int cmd_fremovexattr(char **a) {
  int fd = open_or(a[0], O_RDONLY);
  return fd < 0 ? 0 : outcome(fremovexattr(fd, XNAME));
}
static int cmd_removexattrat(char **a) {
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  return dir < 0 ? 0 : outcome(syscall(SYS_removexattrat, dir, a[1], at_flags(a[2]), XNAME));
}
/* Print `OK VALUE` or the errno: how the test sees an xattr's effect. */
static int cmd_getxattr(char **a) {
  char buf[64];
  ssize_t n = getxattr(a[0], XNAME, buf, sizeof buf - 1);
  if (n < 0) return outcome(-1);
  buf[n] = 0;
  printf("OK %s\n", buf);
  return 0;
}

/* ---- attribute flags (chattr(1)): nodump, which the owner may set ---- */
struct file_attr_v0 { unsigned long long xflags; unsigned extsize, nextents, projid, cowextsize; };

static int cmd_setflags(char **a) {
  int flags = 0, fd = open_or(a[0], O_RDONLY);
  if (fd < 0) return 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) return setup_failed("FS_IOC_GETFLAGS");
  flags |= FS_NODUMP_FL;
  return outcome(ioctl(fd, FS_IOC_SETFLAGS, &flags));
}
/* The same request with the high bits of the command word set: the kernel
 * reads it as an unsigned int, so this is FS_IOC_SETFLAGS all the same. */
static int cmd_setflags_high(char **a) {
  int flags = 0, fd = open_or(a[0], O_RDONLY);
  if (fd < 0) return 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) return setup_failed("FS_IOC_GETFLAGS");
  flags |= FS_NODUMP_FL;
  return outcome(syscall(SYS_ioctl, fd, 0xffffffff00000000ul | FS_IOC_SETFLAGS, &flags));
}
static int cmd_fssetxattr(char **a) {
  struct fsxattr x;
  int fd = open_or(a[0], O_RDONLY);
  if (fd < 0) return 0;
  if (ioctl(fd, FS_IOC_FSGETXATTR, &x) < 0) return setup_failed("FS_IOC_FSGETXATTR");
  x.fsx_xflags |= FS_XFLAG_NODUMP;
  return outcome(ioctl(fd, FS_IOC_FSSETXATTR, &x));
}
static int cmd_file_setattr(char **a) {
  struct file_attr_v0 fa = {0};
  int dir = open_or(a[0], O_PATH | O_DIRECTORY);
  if (dir < 0) return 0;
  if (syscall(SYS_file_getattr, dir, a[1], &fa, sizeof fa, 0) < 0) return outcome(-1); /* ENOSYS before 6.17 */
  fa.xflags |= FS_XFLAG_NODUMP;
  return outcome(syscall(SYS_file_setattr, dir, a[1], &fa, sizeof fa, at_flags(a[2])));
}
/* Print `OK 1` when the nodump flag is set, `OK 0` when not: how the test sees the effect. */
static int cmd_getflags(char **a) {
  int flags = 0, fd = open_or(a[0], O_RDONLY);
  if (fd < 0) return 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) return outcome(-1);
  printf("OK %d\n", (flags & FS_NODUMP_FL) ? 1 : 0);
  return 0;
}

/* ---- attacks on the supervisor ---- */

/* The TOCTOU that SECCOMP_USER_NOTIF_FLAG_CONTINUE would open: one thread
 * chmods a path buffer again and again while another rewrites it between a
 * path inside the write root and one outside (the same length). A
 * supervisor that checked one and let the kernel re-read the other would
 * chmod the outside file. Prints ESCAPED when the outside file's mode
 * changed, HELD otherwise. */
static char race_path[4096];
static const char *race_a, *race_b;
static volatile int race_done, race_started;

static void *flipper(void *arg) {
  (void)arg;
  for (unsigned i = 0; !race_done; i++) {
    memcpy(race_path, i & 1 ? race_b : race_a, strlen(race_a) + 1);
    race_started = 1;
  }
  return NULL;
}

static int cmd_race_chmod(char **a) {
  struct stat st;
  pthread_t t;
  race_a = a[0], race_b = a[1];
  if (strlen(race_a) != strlen(race_b) || strlen(race_a) >= sizeof race_path) return setup_failed("same-length");
  memcpy(race_path, race_a, strlen(race_a) + 1);
  pthread_create(&t, NULL, flipper, NULL);
  while (!race_started) {} /* the race runs from the first call on */
  for (int i = 0, n = atoi(a[2]); i < n; i++) chmod(race_path, 0600);
  race_done = 1;
  pthread_join(t, NULL);
  if (stat(race_b, &st) < 0) return setup_failed("stat");
  printf("%s\n", (st.st_mode & 0777) == 0600 ? "ESCAPED" : "HELD");
  return 0;
}

/* Children chmod in a loop and are SIGKILLed at random moments — some
 * mid-notification. The supervisor must neither stall nor die: a last
 * chmod must still be answered (the test's timeout catches a hang). */
static int cmd_kill_midway(char **a) {
  srand((unsigned)getpid());
  for (int i = 0, n = atoi(a[1]); i < n; i++) {
    pid_t pid = fork();
    if (pid == 0) for (;;) chmod(a[0], 0644);
    if (pid < 0) return setup_failed("fork");
    struct timespec d = {0, (rand() % 2000) * 1000};
    nanosleep(&d, NULL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
  return outcome(chmod(a[0], mode_arg(a[2])));
}

static const struct probe_cmd cmds[] = {
  {"chmod", 2, cmd_chmod},
  {"fchmod", 2, cmd_fchmod},
  {"fchmodat", 3, cmd_fchmodat},
  {"fchmodat2", 4, cmd_fchmodat2},
  {"chmod-proc-fd", 2, cmd_chmod_proc_fd},
  {"chmod-symlink", 3, cmd_chmod_symlink},
  {"chown", 1, cmd_chown},
  {"lchown", 1, cmd_lchown},
  {"fchown", 1, cmd_fchown},
  {"fchownat", 3, cmd_fchownat},
  {"utime", 1, cmd_utime},
  {"utimes", 1, cmd_utimes},
  {"futimesat", 2, cmd_futimesat},
  {"utimensat", 3, cmd_utimensat},
  {"futimens", 1, cmd_futimens},
  {"setxattr", 1, cmd_setxattr},
  {"lsetxattr", 1, cmd_lsetxattr},
  {"fsetxattr", 1, cmd_fsetxattr},
  {"setxattrat", 3, cmd_setxattrat},
  {"removexattr", 1, cmd_removexattr},
  {"lremovexattr", 1, cmd_lremovexattr},
  {"fremovexattr", 1, cmd_fremovexattr},
  {"removexattrat", 3, cmd_removexattrat},
  {"getxattr", 1, cmd_getxattr},
  {"setflags", 1, cmd_setflags},
  {"setflags-high", 1, cmd_setflags_high},
  {"fssetxattr", 1, cmd_fssetxattr},
  {"file-setattr", 3, cmd_file_setattr},
  {"getflags", 1, cmd_getflags},
  {"race-chmod", 3, cmd_race_chmod},
  {"kill-midway", 3, cmd_kill_midway},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
