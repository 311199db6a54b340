/*
 * zygote-client.c — the addon's side of the zygote protocol (zygote.c):
 * descriptors for a child, and one synchronous request/reply.
 *
 * Everything is created close-on-exec: a descriptor meant for one sandboxed
 * command must never leak into another child the caller spawns meanwhile
 * (an open pipe end would also keep the command's output from reaching EOF).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cordon.h"
#include "cordon-wire.h"

/* Never 0, 1 or 2: a caller that closed one of its standard descriptors
 * would otherwise get a cordon descriptor there, and a run with
 * stdio 'inherit' would hand it to the sandboxed command — the zygote's
 * request socket above all, which would let the command ask for anything. */
static int above_std(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  int err = errno;
  close(fd);
  errno = err;
  return high; /* -1 with errno: the original is closed too */
}

/* Both ends of a pair above 2; on failure both are closed. */
static int lift(int fds[2]) {
  for (int i = 0; i < 2; i++) {
    if ((fds[i] = above_std(fds[i])) >= 0) continue;
    int err = errno;
    close(fds[1 - i]);
    errno = err;
    return -1;
  }
  return 0;
}

int cordon_pipe(int fds[2], struct cordon_err *e) {
  if (pipe2(fds, O_CLOEXEC) == 0 && lift(fds) == 0) return 0;
  cordon_err_set(e, "launch", "pipe2", errno);
  return -1;
}

/* SOCK_SEQPACKET keeps message boundaries, so a request and the descriptors
 * attached to it arrive together and alone (unix(7)). fds[1] is the
 * zygote's end: SO_PASSCRED is on before anything can be sent to it, so
 * every message carries its sender's credentials (the kernel attaches them
 * at send time only if the receiver asked already) and the zygote can
 * refuse any sender but the caller. */
int cordon_seqpacket_pair(int fds[2], struct cordon_err *e) {
  int on = 1;
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0) { cordon_err_set(e, "launch", "socketpair", errno); return -1; }
  if (setsockopt(fds[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    cordon_err_set(e, "launch", "setsockopt(SO_PASSCRED)", err);
    return -1;
  }
  /* lift() has closed both ends when it fails: closing them again here
   * could close descriptors another thread opened meanwhile. */
  if (lift(fds) < 0) { cordon_err_set(e, "launch", "fcntl(F_DUPFD_CLOEXEC)", errno); return -1; }
  return 0;
}

int cordon_close(int fd, struct cordon_err *e) {
  if (close(fd) == 0 || errno == EINTR) return 0;
  cordon_err_set(e, "launch", "close", errno);
  return -1;
}

/* The reply is one int32; a zygote that does not answer within the timeout
 * is treated as gone rather than hanging the caller's event loop. */
static int read_reply(int sock, int timeout_ms, int32_t *out) {
  struct pollfd p = {sock, POLLIN, 0};
  int r;
  do r = poll(&p, 1, timeout_ms); while (r < 0 && errno == EINTR);
  if (r == 0) { errno = ETIMEDOUT; return -1; }
  if (r < 0) return -1;
  ssize_t n;
  do n = recv(sock, out, sizeof *out, 0); while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof *out) return 0;
  if (n >= 0) errno = ECONNRESET; /* closed: the zygote died */
  return -1;
}

int cordon_zygote_call(int sock, const void *msg, size_t len, const int *fds, size_t nfds, int timeout_ms, int *result,
                       struct cordon_err *e) {
  int32_t v = 0;
  if (cordon_send_fds(sock, msg, len, fds, nfds) < 0) { cordon_err_set(e, "launch", "sendmsg", errno); return -1; }
  if (read_reply(sock, timeout_ms, &v) < 0) { cordon_err_set(e, "launch", "recv", errno); return -1; }
  *result = v;
  return 0;
}

/* Descriptors handed to the zygote are first moved to 10 and up, so that
 * placing them at 3 and 4 (CORDON_FD_ZYGOTE_*) is always a real dup2 (which
 * clears close-on-exec), never a no-op on a descriptor that would then close. */
static int above(int fd) {
  return fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

/* posix_spawn(3) attributes: an empty signal mask and default handling of
 * every signal (Node ignores SIGPIPE; ignored dispositions survive execve). */
static int zygote_attrs(posix_spawnattr_t *a) {
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if (posix_spawnattr_init(a)) return -1;
  if (posix_spawnattr_setsigmask(a, &none) || posix_spawnattr_setsigdefault(a, &all) ||
      posix_spawnattr_setflags(a, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) {
    posix_spawnattr_destroy(a);
    return -1;
  }
  return 0;
}

/* stdio on /dev/null, the request socket on 3, the event pipe on 4 (cordon-wire.h). */
static int zygote_fds(posix_spawn_file_actions_t *f, int req, int events) {
  if (posix_spawn_file_actions_init(f)) return -1;
  for (int fd = 0; fd <= 2; fd++)
    if (posix_spawn_file_actions_addopen(f, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)) goto fail;
  if (posix_spawn_file_actions_adddup2(f, req, CORDON_FD_ZYGOTE_REQUESTS) ||
      posix_spawn_file_actions_adddup2(f, events, CORDON_FD_ZYGOTE_EVENTS))
    goto fail;
  return 0;
fail:
  posix_spawn_file_actions_destroy(f);
  return -1;
}

/*
 * Start `path --zygote` with posix_spawn(3): glibc uses CLONE_VM|CLONE_VFORK,
 * so unlike Node's child_process (a fork of the whole Node process) no page
 * tables are copied, and the child runs no code of ours before execve. The
 * environment is empty. `req` is the zygote's end of the request socket;
 * *events_out receives the read end of its event pipe.
 */
int cordon_spawn_zygote(const char *path, int req, pid_t *pid_out, int *events_out, struct cordon_err *e) {
  int pipefd[2] = {-1, -1}, req_hi = -1, ev_hi = -1, rc = -1;
  posix_spawnattr_t attrs;
  posix_spawn_file_actions_t acts;
  char *argv[] = {(char *)path, (char *)CORDON_ARG_ZYGOTE, NULL}, *envp[] = {NULL};
  if (cordon_pipe(pipefd, e) < 0) return -1;
  if ((req_hi = above(req)) < 0 || (ev_hi = above(pipefd[1])) < 0) { cordon_err_set(e, "launch", "fcntl", errno); goto out; }
  if (zygote_attrs(&attrs) < 0) { cordon_err_set(e, "launch", "posix_spawnattr", errno); goto out; }
  if (zygote_fds(&acts, req_hi, ev_hi) < 0) { posix_spawnattr_destroy(&attrs); cordon_err_set(e, "launch", "posix_spawn_file_actions", errno); goto out; }
  int err = posix_spawn(pid_out, path, &acts, &attrs, argv, envp);
  posix_spawn_file_actions_destroy(&acts);
  posix_spawnattr_destroy(&attrs);
  if (err) { cordon_err_set(e, "launch", "posix_spawn", err); goto out; }
  *events_out = pipefd[0];
  pipefd[0] = -1;
  rc = 0;
out:
  if (pipefd[0] >= 0) close(pipefd[0]);
  close(pipefd[1]);
  if (req_hi >= 0) close(req_hi);
  if (ev_hi >= 0) close(ev_hi);
  return rc;
}

/* Collect a zygote that has exited (cordon started it, so nothing else will). */
int cordon_reap(pid_t pid) {
  int status;
  pid_t r;
  do r = waitpid(pid, &status, WNOHANG); while (r < 0 && errno == EINTR);
  return r == pid ? 1 : 0;
}

/* One component at a time from "/", each opened O_PATH|O_NOFOLLOW and checked
 * not to be a symlink: a bind source inside a write root can be swapped for a
 * link by a sandbox that is still running (a rename or RENAME_EXCHANGE loop),
 * and bwrap, given a path, would follow it when it mounts — onto ~/.ssh, say.
 * A descriptor pins the object that was checked (bwrap --bind-fd). "." and
 * ".." are refused: the paths are canonical, so either means tampering. */
static int step(int dir, const char *name, int last) {
  struct stat st;
  int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fstat(fd, &st) < 0) { close(fd); return -1; }
  if (S_ISLNK(st.st_mode) || (!last && !S_ISDIR(st.st_mode))) {
    close(fd);
    errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
    return -1;
  }
  return fd;
}

int cordon_open_nofollow(const char *path, struct cordon_err *e) {
  char buf[4096], *save = NULL;
  if (path[0] != '/' || strlen(path) >= sizeof buf) { cordon_err_set(e, "launch", "open", EINVAL); return -1; }
  strcpy(buf, path);
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (char *c = strtok_r(buf + 1, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
    int next = strcmp(c, ".") == 0 || strcmp(c, "..") == 0 ? (errno = EINVAL, -1) : step(fd, c, save == NULL || *save == 0);
    int err = errno;
    close(fd);
    fd = next;
    errno = err;
  }
  fd = above_std(fd);
  if (fd < 0) cordon_err_set(e, "launch", "openat", errno);
  return fd;
}

/* The plan travels in a sealed memfd instead of a pipe: the whole plan is
 * there before the launcher starts, so the caller never blocks on a full
 * pipe (a plan can exceed the 64 KiB a pipe holds) and needs no stream to
 * feed it. The seals make the contents final (memfd_create(2), fcntl(2)
 * F_ADD_SEALS): neither the launcher, which holds the descriptor read-write,
 * nor anything else can change the plan after cordon wrote it. */
static int write_all(int fd, const uint8_t *data, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, data, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    data += w;
    len -= (size_t)w;
  }
  return 0;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* Linux 6.3, <linux/memfd.h> */
#endif

/* Not executable, asked for explicitly: with the vm.memfd_noexec sysctl at 2
 * (hardened hosts, Linux ≥ 6.3) a memfd_create without MFD_NOEXEC_SEAL is
 * refused, and older kernels refuse the unknown flag (EINVAL): then without
 * it (memfd_create(2)). */
static int plan_memfd(void) {
  int fd = memfd_create("cordon-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
  if (fd < 0 && errno == EINVAL) fd = memfd_create("cordon-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  return fd;
}

int cordon_sealed_memfd(const uint8_t *data, size_t len, struct cordon_err *e) {
  int fd = plan_memfd();
  if (fd < 0) { cordon_err_set(e, "launch", "memfd_create", errno); return -1; }
  const char *failed = NULL;
  if (write_all(fd, data, len) < 0) failed = "write";
  else if (lseek(fd, 0, SEEK_SET) < 0) failed = "lseek";
  else if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) failed = "fcntl(F_ADD_SEALS)";
  if (failed) {
    int err = errno;
    close(fd);
    cordon_err_set(e, "launch", failed, err);
    return -1;
  }
  if ((fd = above_std(fd)) < 0) cordon_err_set(e, "launch", "fcntl(F_DUPFD_CLOEXEC)", errno);
  return fd;
}
