/*
 * supervise.c — after every restriction is in place, fork: the child execs
 * the command, the launcher stays behind as a small supervisor that
 *
 *  - reports the command's real wait status on the status fd (in namespace
 *    mode bwrap can only pass on "exit 128+N", which hides a SIGSYS from a
 *    seccomp kill behind an exit code);
 *  - is a child subreaper (prctl(2), PR_SET_CHILD_SUBREAPER), so processes
 *    the command double-forks and setsid()s are re-parented to it instead of
 *    to init, and are killed when the command ends: the sandboxed tree does
 *    not outlive its command;
 *  - in Landlock mode, holds the listener of the command's metadata filter
 *    and decides its chmod, chown, utimes and xattr calls (metadata.h);
 *  - forwards SIGTERM/SIGINT/SIGHUP/SIGQUIT to the command;
 *  - on SIGUSR2 — sent by cordon on a timeout or abort, and delivered as the
 *    parent-death signal if the caller dies — kills the command and sweeps
 *    its leftovers before exiting, so nothing outlives a torn-down sandbox.
 *
 * The command's process starts *before* Landlock and seccomp, which it applies to
 * itself: the supervisor (no capabilities, no_new_privs, reads nothing the
 * command controls) stays outside the command's Landlock domain, so with
 * signal scoping (ABI 6) the command cannot kill its supervisor to let the
 * processes it left behind outlive it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "launcher.h"
#include "metadata.h"

#define MAX_SWEEPS 256 /* bound the kill loop against a fork bomb */

static volatile pid_t command_pid;

static void forward(int sig) {
  if (command_pid > 0) kill(command_pid, sig);
}

/* Tear-down: only kill() here (async-signal-safe, signal-safety(7)); the
 * sweep runs in the main loop once the command has been reaped. */
static void teardown(int sig) {
  (void)sig;
  if (command_pid > 0) kill(command_pid, SIGKILL);
}

static void on(int sig, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, NULL);
}

static const int handled[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR2};
#define N_HANDLED (sizeof handled / sizeof *handled)

/* Block the handled signals while the command starts: one that arrives
 * before its pid is known stays pending and is acted on once it is (an
 * early SIGUSR2 — tear-down, or the caller's death — is never lost). */
static void block_handled(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < N_HANDLED; i++) sigaddset(&set, handled[i]);
  sigprocmask(SIG_BLOCK, &set, old);
}

static void install_handlers(pid_t caller) {
  for (size_t i = 0; i + 1 < N_HANDLED; i++) on(handled[i], forward);
  on(SIGUSR2, teardown);
  signal(SIGPIPE, SIG_IGN); /* the caller may be gone when the exit record is written */
  /* The caller's death now means tear-down, not an abrupt SIGKILL that
   * would leave the command's setsid()'d descendants behind. */
  prctl(PR_SET_PDEATHSIG, SIGUSR2);
  if (getppid() != caller) raise(SIGUSR2); /* pending until the command's pid is known */
}

/* Kill every child listed in /proc/self/task/<tid>/children; returns how many. */
static int kill_children(void) {
  char path[64], buf[4096];
  int n = 0;
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = 0;
  for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
    if (kill((pid_t)atoi(tok), SIGKILL) == 0) n++;
  return n;
}

/* Whatever the command left running (daemons, double-forked children, now
 * ours as subreaper) is killed and reaped. In a pid namespace where we are
 * pid 1, the kernel does the same when we exit. */
static void sweep(void) {
  for (int i = 0; i < MAX_SWEEPS; i++) {
    int killed = kill_children();
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    if (killed <= 0) break;
    usleep(1000);
  }
  while (waitpid(-1, NULL, WNOHANG) > 0) {}
}

static int wait_command(pid_t child) {
  int status = 0;
  for (;;) {
    pid_t got = waitpid(-1, &status, 0);
    if (got == child) return status;
    if (got < 0 && errno != EINTR) return -1;
  }
}

struct child_args {
  const struct plan *p;
  int status_fd;
  pid_t supervisor;
  struct applied *a;
  sigset_t mask; /* the signal mask to exec the command with */
  int md_sock;   /* Landlock mode: where the metadata listener goes (metadata.h), or -1 */
};

/* The command gets default handling of the supervisor's signals and the
 * original mask. Handlers first: a signal pending now must act on the
 * command itself (SIGTERM ends it), not run the supervisor's handler here. */
static void restore_signals(const struct child_args *c) {
  for (size_t i = 0; i < N_HANDLED; i++) signal(handled[i], SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &c->mask, NULL);
}

/* The command's process: confine, report, execve. Never returns.
 * It runs on its own stack in the supervisor's memory (see start_command),
 * so it only makes system calls and writes its own stack — and `applied`,
 * which the supervisor no longer reads. */
static int child_exec(void *arg) {
  const struct child_args *c = arg;
  struct cordon_err e;
  memset(&e, 0, sizeof e);
  /* If the supervisor dies (SIGKILL from the caller), the command dies too.
   * The death signal is cleared for a new child, so it is set again here. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != c->supervisor) _exit(CORDON_EXIT_SETUP);
  /* Landlock and seccomp bind this task only (landlock_restrict_self(2),
   * seccomp(2) without TSYNC): the supervisor stays outside both. */
  if (step_ctty(c->p, &e) || step_landlock(c->p, c->a, &e) || step_metadata(c->p, c->md_sock, c->a, &e) || step_seccomp(c->p, c->a, &e)) {
    status_write_err(c->status_fd, &e);
    _exit(CORDON_EXIT_SETUP);
  }
  status_write_ok(c->status_fd, c->a);
  restore_signals(c);
  step_exec(c->p, &e);
  status_write_err(c->status_fd, &e);
  _exit(e.err == ENOENT ? CORDON_EXIT_NOT_FOUND : CORDON_EXIT_CANNOT_EXECUTE);
}

/* Start the command like posix_spawn(3) does: CLONE_VM | CLONE_VFORK shares
 * the supervisor's memory and suspends the supervisor until the child has
 * exec'd or exited, so no page tables are copied (and torn down again by
 * execve) — a fork(2) costs about a millisecond more on a VM. Credentials,
 * the Landlock domain and the seccomp filter stay per task (clone(2)). */
static pid_t start_command(struct child_args *c) {
  static char stack[256 * 1024] __attribute__((aligned(16)));
  return clone(child_exec, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, c);
}

/* Namespace mode with a network allowlist: the forwarder listens before the
 * command exists (it cannot take the port first) and is this supervisor's
 * child, so the sweep after the command takes it down with the rest. */
static int start_forwarder(const struct plan *p, struct cordon_err *e) {
  if (!p->fwd_port) return 0;
  int lfd = cordon_forwarder_listen(p->fwd_port, e);
  return lfd < 0 || cordon_forwarder_start(lfd, p, e) < 0 ? -1 : 0;
}

/* Returns only on failure to fork; otherwise exits with the command's status. */
int step_supervise(const struct plan *p, int status_fd, struct applied *a, struct cordon_err *e) {
  pid_t self = getpid(), caller = getppid(), child;
  struct md_roots roots;
  int md_sock[2];
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) { cordon_err_set(e, "supervise", "prctl(PR_SET_CHILD_SUBREAPER)", errno); return -1; }
  if (md_prepare(p, &roots, md_sock, e)) return -1;
  if (start_forwarder(p, e)) return -1;
  struct child_args c = {p, status_fd, self, a, {{0}}, md_sock[1]};
  block_handled(&c.mask);
  install_handlers(caller);
  child = start_command(&c);
  if (child < 0) { cordon_err_set(e, "supervise", "clone", errno); return -1; }
  int listener = md_take_listener(md_sock);
  command_pid = child;
  sigprocmask(SIG_SETMASK, &c.mask, NULL); /* pending signals act now */
  /* Not dumpable: the command (same uid) cannot open /proc/<supervisor>/mem
   * or environ (ptrace access mode checks, ptrace(2)). */
  prctl(PR_SET_DUMPABLE, 0);
  /* The supervisor does not hold the command's stdio open. */
  close(0); close(1); close(2);
  int status = listener >= 0 ? md_serve(listener, child, &roots) : wait_command(child);
  sweep();
  status_write_exit(status_fd, status);
  if (status >= 0 && WIFSIGNALED(status)) _exit(128 + WTERMSIG(status));
  _exit(status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : CORDON_EXIT_SETUP);
}
