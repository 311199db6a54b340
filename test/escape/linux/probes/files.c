/*
 * files.c — filesystem escape attempts: reading denied paths through the
 * indirections of threat-model.md § Files, and modifying paths outside the
 * writable roots. Paths come from the test (all inside its temp dirs, except
 * the host /tmp, /etc, /proc/sys and /sys checks, which undo what they do).
 */
#include "probe.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* Read up to one line from fd and print `OK <line>` (the test checks it). */
static int print_content(int fd) {
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int saved = errno;
  close(fd);
  if (n < 0) { errno = saved; return outcome(-1); }
  buf[n] = 0;
  buf[strcspn(buf, "\n")] = 0;
  printf("OK %s\n", buf);
  return 0;
}

static int read_fd_or_errno(int fd) { return fd < 0 ? outcome(-1) : print_content(fd); }

static int cmd_read(char **a) { return read_fd_or_errno(open(a[0], O_RDONLY | O_CLOEXEC)); }

/* Opening is the attempt (a device whose read would block or needs a buffer size). */
static int cmd_open(char **a) {
  int fd = open(a[0], O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd >= 0) close(fd);
  return outcome(fd);
}

/* A symlink planted by the sandboxed code in its writable dir, then followed. */
static int cmd_read_symlink(char **a) {
  if (symlink(a[1], a[0]) < 0 && errno != EEXIST) return setup_failed("symlink");
  return cmd_read(a);
}

/* A hard link planted by the sandboxed code: the link itself is the attempt
 * (Landlock refuses to give a file more rights under a new name). */
static int cmd_read_hardlink(char **a) {
  if (link(a[1], a[0]) < 0) return outcome(-1);
  return cmd_read(a);
}

/* `..` from a directory fd opened on an allowed dir. */
static int cmd_read_dotdot(char **a) {
  int dir = open(a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return setup_failed("open-dir");
  return read_fd_or_errno(openat(dir, a[1], O_RDONLY | O_CLOEXEC));
}

/* An O_PATH fd (never checked by Landlock) upgraded by re-opening it
 * through its /proc/self/fd magic link. A sandbox that refuses even the
 * O_PATH open (a masked path) stops the attack there: that is the outcome. */
static int cmd_read_opath(char **a) {
  char proc[64];
  int fd = open(a[0], O_PATH | O_CLOEXEC);
  if (fd < 0) return outcome(-1);
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return read_fd_or_errno(open(proc, O_RDONLY | O_CLOEXEC));
}

/* The "shocker" escape: a handle opens a file without any path check. */
static int cmd_open_by_handle(char **a) {
  struct file_handle *fh = calloc(1, sizeof *fh + MAX_HANDLE_SZ);
  int mount_id;
  fh->handle_bytes = MAX_HANDLE_SZ;
  /* A masked path has no handle to take: the attack ends there. */
  if (name_to_handle_at(AT_FDCWD, a[0], fh, &mount_id, 0) < 0) return outcome(-1);
  /* AT_FDCWD names the mount: the cwd is on the same filesystem (an O_PATH fd would be EBADF). */
  return read_fd_or_errno(open_by_handle_at(AT_FDCWD, fh, O_RDONLY | O_CLOEXEC));
}

/* open_by_handle_at with a closed mount fd: the kernel answers EBADF before
 * any privilege check, so EPERM can only come from the syscall filter. */
static int cmd_open_by_handle_badfd(char **a) {
  struct file_handle fh = {.handle_bytes = 8};
  (void)a;
  return outcome(open_by_handle_at(987, &fh, O_RDONLY));
}

static int cmd_write(char **a) {
  int fd = open(a[0], O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return outcome(-1);
  long rc = write(fd, "x", 1);
  close(fd);
  return outcome(rc);
}

/* Create a file, and remove it again when that worked (host dirs stay clean). */
static int cmd_create(char **a) {
  int fd = open(a[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) { close(fd); unlink(a[0]); }
  return outcome(fd);
}

/* Create a file and leave it: the test checks whether it reached the host. */
static int cmd_touch(char **a) {
  int fd = open(a[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
  return outcome(fd);
}

static int cmd_unlink(char **a) { return outcome(unlink(a[0])); }
static int cmd_rename(char **a) { return outcome(rename(a[0], a[1])); }
static int cmd_truncate(char **a) { return outcome(truncate(a[0], 0)); }
static int cmd_chmod(char **a) { return outcome(chmod(a[0], (mode_t)strtol(a[1], NULL, 8))); }
static int cmd_utimes(char **a) {
  struct timeval tv[2] = {{1, 0}, {1, 0}}; /* explicit times need ownership, not just write access */
  return outcome(utimes(a[0], tv));
}

static int cmd_mkdir(char **a) {
  int rc = mkdir(a[0], 0700);
  if (rc == 0) rmdir(a[0]);
  return outcome(rc);
}

static int cmd_mknod(char **a) {
  int rc = mknod(a[0], S_IFREG | 0600, 0);
  if (rc == 0) unlink(a[0]);
  return outcome(rc);
}

static int cmd_mkfifo(char **a) {
  int rc = mkfifo(a[0], 0600);
  if (rc == 0) unlink(a[0]);
  return outcome(rc);
}

/* A symlink planted in the writable root that points outside it, written through. */
static int cmd_write_symlink(char **a) {
  if (symlink(a[1], a[0]) < 0 && errno != EEXIST) return setup_failed("symlink");
  return cmd_write(a);
}

/* Write a file's current content back to it: a real write, no change
 * (for /proc/sys and /sys knobs, where anything else would alter the host). */
static int cmd_write_same(char **a) {
  char buf[4096];
  int fd = open(a[0], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return setup_failed("read");
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) return setup_failed("read");
  if ((fd = open(a[0], O_WRONLY | O_CLOEXEC)) < 0) return outcome(-1);
  long rc = write(fd, buf, (size_t)n);
  close(fd);
  return outcome(rc);
}

static const struct probe_cmd cmds[] = {
  {"read", 1, cmd_read},
  {"open", 1, cmd_open},
  {"read-symlink", 2, cmd_read_symlink},
  {"read-hardlink", 2, cmd_read_hardlink},
  {"read-dotdot", 2, cmd_read_dotdot},
  {"read-opath", 1, cmd_read_opath},
  {"open-by-handle", 1, cmd_open_by_handle},
  {"open-by-handle-badfd", 0, cmd_open_by_handle_badfd},
  {"write", 1, cmd_write},
  {"create", 1, cmd_create},
  {"touch", 1, cmd_touch},
  {"unlink", 1, cmd_unlink},
  {"rename", 2, cmd_rename},
  {"truncate", 1, cmd_truncate},
  {"chmod", 2, cmd_chmod},
  {"utimes", 1, cmd_utimes},
  {"mkdir", 1, cmd_mkdir},
  {"mknod", 1, cmd_mknod},
  {"mkfifo", 1, cmd_mkfifo},
  {"write-symlink", 2, cmd_write_symlink},
  {"write-same", 1, cmd_write_same},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
