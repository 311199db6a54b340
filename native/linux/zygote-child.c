/*
 * zygote-child.c — how the zygote (zygote.c) starts a child: a clean slate
 * in the child, its descriptors in place, then the launcher (launcher.c) or
 * bwrap; and the "spare", a child forked *before* its request arrives.
 *
 * Why a spare: fork(2) of even this small static process costs close to a
 * millisecond on a VM. Forked ahead of time, while the previous command
 * runs, that cost leaves the path between the caller's request and the
 * command's start; the request and its descriptors are handed to the
 * waiting spare over a private socket pair instead, and the zygote answers
 * at once (in namespace mode it does not wait for bwrap's execve either).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "launcher.h"
#include "zygote.h"

/* The child starts from a clean slate: default signal handling and an empty
 * mask (both survive execve, signal(7)), the caller's umask, and no
 * descriptor of the zygote's own. */
static void reset_child(int sig_fd, mode_t mask) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  close(sig_fd);
  umask(mask);
}

/* Move the n received descriptors to 0..n-1 and close everything else
 * (the request socket and the event stream included). They are first
 * lifted above n-1, so that placing one can never overwrite another that is
 * still to be placed; dup2(2) clears close-on-exec on the final copies. */
static int place_fds(const struct zy_request *r, int *status_fd) {
  int n = (int)r->nfds, high[CORDON_MAX_REQUEST_FDS] = {0};
  for (int i = 0; i < n; i++)
    if ((high[i] = fcntl(r->fds[i], F_DUPFD_CLOEXEC, n)) < 0) return -1;
  /* From here a received number may be overwritten by a placed one: errors go to the lifted copy. */
  *status_fd = high[CORDON_FD_STATUS];
  for (int i = 0; i < n; i++)
    if (dup2(high[i], i) < 0) return -1;
  return cordon_close_from(n, ~0U >> 1);
}

static void report_step_and_exit(int status_fd, const char *step, const char *syscall, const char *detail, int code) {
  struct cordon_err e;
  cordon_err_set(&e, step, syscall, errno);
  if (detail) snprintf(e.detail, sizeof e.detail, "%s", detail);
  status_write_err(status_fd, &e);
  _exit(code);
}

static void report_and_exit(int status_fd, const char *syscall, const char *detail, int code) {
  report_step_and_exit(status_fd, "launch", syscall, detail, code);
}

/*
 * Joined ahead of time (the spare, below): the cgroup.procs files this
 * process wrote itself into, by file identity. Why ahead of time: moving a
 * process between cgroups takes the kernel's cgroup_threadgroup_rwsem for
 * writing, a per-CPU rwsem whose writer waits for an RCU grace period
 * unless another writer came just before (percpu_down_write, rcu_sync) —
 * ~10 ms on a VM whenever runs are more than a few ms apart. The spare pays
 * that wait while the previous command runs or the caller is idle, not
 * between the caller's request and the command's start.
 */
struct file_id {
  dev_t dev;
  ino_t ino;
};
static struct file_id joined[CORDON_MAX_CGROUP_FDS];
static size_t n_joined;

static int same_file(struct file_id a, struct file_id b) { return a.dev == b.dev && a.ino == b.ino; }

static int file_id_of(int fd, struct file_id *out) {
  struct stat st;
  if (fstat(fd, &st) < 0) return -1;
  *out = (struct file_id){st.st_dev, st.st_ino};
  return 0;
}

/* The launch's files are exactly the joined ones: as many, each joined, no
 * two the same (so none of the joined is left out). */
static int joined_already(const struct zy_request *r, size_t first) {
  struct file_id ids[CORDON_MAX_CGROUP_FDS];
  size_t n = r->nfds - first;
  if (n != n_joined || n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    int found = 0;
    if (file_id_of(r->fds[first + i], &ids[i]) < 0) return 0;
    for (size_t j = 0; j < i; j++)
      if (same_file(ids[j], ids[i])) return 0;
    for (size_t j = 0; j < n_joined && !found; j++) found = same_file(joined[j], ids[i]);
    if (!found) return 0;
  }
  return 1;
}

/*
 * Join the run's cgroups (cgroups(7)): the caller created them, set their
 * limits and opened each one's cgroup.procs; the request carries those files
 * last. Writing "0" moves the writing process (the kernel reads pid 0 as
 * "the caller", in v1 and v2 alike), so no pid crosses a pid namespace.
 *
 * Why here, in the forked child and before anything else: a process that
 * ran even one instruction of the command's outside the cgroup could fork
 * a child that stays outside it — beyond pids.max, memory.max, and beyond
 * the cgroup-wide kill that ends the run. Everything this child forks or
 * execs from now on (the launcher's supervisor, bwrap, the command and all
 * its descendants, double-forked or setsid()'d) is born inside.
 *
 * Then the files are closed, before any exec: an open cgroup.procs is a
 * capability (since Linux 5.16 the kernel checks a migration against the
 * credentials of whoever opened the file, cgroups(7) "delegation
 * containment"). Held by the command, it would let it pull other processes
 * of the caller's (a root caller's: any process) into the run's cgroup,
 * where the kill at the run's end would take them down too.
 */
static void join_cgroups(struct zy_request *r, size_t ncg) {
  size_t first = r->nfds - ncg;
  int ahead = joined_already(r, first);
  /* Joined ahead for another launch (the caller replaces such a spare before
   * any other launch; this is the second line): writing this launch's files
   * would not leave the cgroups it lacks, so the command would run in another
   * run's. Refused instead. */
  if (n_joined > 0 && !ahead) { errno = EBUSY; report_step_and_exit(r->fds[CORDON_FD_STATUS], "cgroup", "join", "joined ahead for another run", CORDON_EXIT_SETUP); }
  size_t from = ahead ? r->nfds : first; /* nothing left to write */
  for (size_t i = from; i < r->nfds; i++) {
    ssize_t w;
    do w = write(r->fds[i], "0", 1); while (w < 0 && errno == EINTR);
    if (w != 1) report_step_and_exit(r->fds[CORDON_FD_STATUS], "cgroup", "write", "cgroup.procs", CORDON_EXIT_SETUP);
  }
  for (size_t i = first; i < r->nfds; i++) close(r->fds[i]);
  r->nfds = first; /* place_fds never sees them */
}

/* Namespace mode: exec bwrap on fds 0..n-1, with an empty environment (the
 * command's environment travels in the plan); bwrap keeps fds 3 and 4 open
 * for the launcher it runs, and mounts the bind sources on 5.. by fd. */
static void exec_wrapper(char **argv) {
  char *envp[] = {NULL};
  execve(argv[0], argv, envp);
  report_and_exit(CORDON_FD_STATUS, "execve", argv[0], CORDON_EXIT_NOT_FOUND);
}

/* In the child (the spare, or a fork when there is none): run one request,
 * which the zygote has already checked. Never returns. */
static void child_main(struct zy_request *r, const struct zy_parsed *q, int sig_fd) {
  if (q->kind == ZY_KILL || q->kind == ZY_JOIN || q->kind == ZY_VERSION || r->nfds < CORDON_CHILD_FDS + q->ncg) _exit(CORDON_EXIT_SETUP);
  reset_child(sig_fd, q->umask);
  join_cgroups(r, q->ncg);
  int status_fd = r->fds[CORDON_FD_STATUS]; /* the status fd as received, until place_fds lifts it */
  if (place_fds(r, &status_fd) < 0) report_and_exit(status_fd, "dup2", NULL, CORDON_EXIT_SETUP);
  if (q->kind == ZY_LAUNCH) _exit(launcher_run(CORDON_FD_PLAN, CORDON_FD_STATUS));
  exec_wrapper(q->argv);
}

/* Without a spare: a plain fork. */
pid_t zy_start(struct zy_request *r, const struct zy_parsed *q, int sig_fd) {
  pid_t pid = fork();
  if (pid == 0) child_main(r, q, sig_fd);
  return pid;
}

static struct { pid_t pid; int sock; } spare = {0, -1};

/* The spare waits for its one request, forwarded whole by the zygote with
 * its descriptors, and parses it again itself: nothing but the bytes
 * crosses between the two processes. It dies with the zygote (PDEATHSIG)
 * and never runs anything without a request. */
/* A join ahead of the launch: write "0" into each cgroup.procs (this
 * process) and remember which files. */
/* A file of a cgroup filesystem, v1 or v2 (statfs(2) f_type): a join writes
 * "0" into nothing else. */
static int on_cgroupfs(int fd) {
  struct statfs fs;
  return fstatfs(fd, &fs) == 0 && (fs.f_type == CGROUP_SUPER_MAGIC || fs.f_type == CGROUP2_SUPER_MAGIC);
}

static void join_ahead(struct zy_request *r) {
  n_joined = 0;
  int ok = 1;
  for (size_t i = 0; ok && i < r->nfds; i++) {
    struct file_id id;
    ssize_t w = -1;
    ok = on_cgroupfs(r->fds[i]) && file_id_of(r->fds[i], &id) == 0;
    for (size_t j = 0; ok && j < n_joined; j++) ok = !same_file(joined[j], id); /* each once */
    if (ok) do w = write(r->fds[i], "0", 1); while (w < 0 && errno == EINTR);
    ok = ok && w == 1;
    if (ok) joined[n_joined++] = id;
  }
  /* Half joined is a state no launch should start from: this spare ends, and
   * the next launch gets a fresh child, which joins its own cgroups. */
  if (!ok) _exit(CORDON_EXIT_SETUP);
  zy_request_close_fds(r); /* a cgroup.procs is a capability: never kept (see join_cgroups) */
}

static void spare_main(int sock, pid_t zygote, int sig_fd) {
  static struct zy_parsed q;
  struct zy_request r;
  if (zy_request_init(&r) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != zygote) _exit(CORDON_EXIT_SETUP);
  for (;;) {
    if (zy_request_receive(sock, &r, 0) <= 0 || zy_request_parse(&r, &q) < 0) _exit(CORDON_EXIT_SETUP);
    if (q.kind != ZY_JOIN) break;
    join_ahead(&r);
  }
  child_main(&r, &q, sig_fd); /* which refuses a request without its five descriptors */
}

void zy_spare_make(int sig_fd) {
  int sv[2];
  pid_t zygote = getpid();
  if (spare.pid > 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) { close(sv[0]); spare_main(sv[1], zygote, sig_fd); }
  close(sv[1]);
  if (pid < 0) { close(sv[0]); return; }
  spare.pid = pid;
  spare.sock = sv[0];
}

static void spare_drop(void) {
  close(spare.sock);
  spare.pid = 0;
  spare.sock = -1;
}

/* Hand the request to the spare; its pid, or -1 when there is none (or it
 * died meanwhile: the caller then forks as usual). */
pid_t zy_spare_take(struct zy_request *r) {
  pid_t pid = spare.pid;
  if (pid <= 0) return -1;
  int ok = zy_request_send(spare.sock, r) == 0;
  spare_drop();
  if (ok) return pid;
  kill(pid, SIGKILL); /* reaped later; its exit is reported for an unknown pid */
  return -1;
}

/* Forward a join to the waiting spare, or with no files replace the spare
 * by a fresh one that joined nothing. Without a spare (or when the send
 * fails) nothing happens: the next child joins its launch's cgroups itself. */
void zy_spare_join(struct zy_request *r, int sig_fd) {
  if (r->nfds == 0) {
    if (spare.pid > 0) kill(spare.pid, SIGKILL); /* reaped later; not a tracked child */
    spare_drop();
    zy_spare_make(sig_fd);
  } else if (spare.pid > 0) {
    (void)zy_request_send(spare.sock, r);
  }
  zy_request_close_fds(r);
}

void zy_spare_reaped(pid_t pid) {
  if (pid == spare.pid) spare_drop();
}
