/*
 * exec.c — fileless execution: a binary written into a memfd and run with
 * execveat(fd, "", AT_EMPTY_PATH) or through /proc/self/fd/N never touches
 * the filesystem, so no path-based execute rule (Landlock, a read-only or
 * noexec mount) sees it. Also what real programs need to keep working:
 * non-executable memfds (MFD_NOEXEC_SEAL) and glibc's fexecve of a file.
 *
 * The exec runs in a child; its errno comes back through a close-on-exec
 * pipe (nothing arrives when the exec worked), then its exit status.
 */
#include "probe.h"
#include <fcntl.h>
#include <linux/memfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

extern char **environ;

/* A memfd holding a copy of `binary`; -1 (errno set) when memfd_create itself fails, -2 on a copy failure. */
static int memfd_copy(const char *binary, unsigned flags) {
  char buf[65536];
  ssize_t n;
  int fd = (int)syscall(SYS_memfd_create, "cordon-probe", flags);
  if (fd < 0) return -1;
  int in = open(binary, O_RDONLY | O_CLOEXEC);
  if (in < 0) return -2;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(fd, buf, (size_t)n) != n) return -2;
  close(in);
  return n < 0 ? -2 : fd;
}

enum how { BY_EXECVEAT, BY_PROC, BY_FEXECVE };

/* Exec fd in a child by `how`; prints OK when it ran and exited 0, else the exec's errno. */
static int run_fd(int fd, enum how how) {
  int p[2], err = 0, status = 0;
  char path[64];
  char *argv[] = {"probe-child", NULL};
  if (pipe2(p, O_CLOEXEC) < 0) return setup_failed("pipe");
  pid_t pid = fork();
  if (pid < 0) return setup_failed("fork");
  if (pid == 0) {
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (how == BY_EXECVEAT) syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
    else if (how == BY_PROC) execve(path, argv, environ);
    else fexecve(fd, argv, environ);
    err = errno;
    if (write(p[1], &err, sizeof err) < 0) _exit(126);
    _exit(127);
  }
  close(p[1]);
  ssize_t got = read(p[0], &err, sizeof err);
  if (waitpid(pid, &status, 0) < 0) return setup_failed("waitpid");
  if (got == (ssize_t)sizeof err) {
    errno = err;
    return outcome(-1);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return setup_failed("child-status");
  return outcome(0);
}

static int memfd_then(const char *binary, unsigned flags, enum how how) {
  int fd = memfd_copy(binary, flags);
  if (fd == -1) return outcome(-1); /* memfd_create is the call under test */
  if (fd < 0) return setup_failed("copy");
  return run_fd(fd, how);
}

static int cmd_memfd_execveat(char **a) { return memfd_then(a[0], MFD_CLOEXEC, BY_EXECVEAT); }
static int cmd_memfd_proc(char **a) { return memfd_then(a[0], MFD_CLOEXEC, BY_PROC); }
static int cmd_memfd_noexec_exec(char **a) { return memfd_then(a[0], MFD_CLOEXEC | MFD_NOEXEC_SEAL, BY_PROC); }

/* What real programs need: a sealed, non-executable memfd (shared buffers, Wayland, …). */
static int cmd_memfd_noexec(char **a) {
  (void)a;
  return outcome(syscall(SYS_memfd_create, "cordon-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL));
}

/* execveat(AT_EMPTY_PATH) of an ordinary file: the raw call under test. */
static int cmd_execveat_file(char **a) {
  int fd = open(a[0], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return setup_failed("open");
  return run_fd(fd, BY_EXECVEAT);
}

/* glibc's fexecve of an ordinary file (it falls back to /proc/self/fd/N on ENOSYS). */
static int cmd_fexecve_file(char **a) {
  int fd = open(a[0], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return setup_failed("open");
  return run_fd(fd, BY_FEXECVE);
}

static const struct probe_cmd cmds[] = {
  {"memfd-execveat", 1, cmd_memfd_execveat},
  {"memfd-proc", 1, cmd_memfd_proc},
  {"memfd-noexec", 0, cmd_memfd_noexec},
  {"memfd-noexec-exec", 1, cmd_memfd_noexec_exec},
  {"execveat-file", 1, cmd_execveat_file},
  {"fexecve-file", 1, cmd_fexecve_file},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
