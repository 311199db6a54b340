/*
 * launcher.c — cordon's pre-exec sequence on macOS: one confined command.
 *
 *   plan → harden (PT_DENY_ATTACH, RLIMIT_CORE 0) → session → cwd →
 *   close fds → rlimits → DYLD_* out of the command's environment →
 *   refuse when already sandboxed → sandbox_init(profile) → "ok" → execve
 *
 * The profile goes last before exec: every earlier step may need what the
 * profile denies (chdir into a directory the command may not list, fds it
 * may not keep). From sandbox_init on, this process and everything it
 * execs is confined. Any failure before execve is an error record on the
 * status fd and exit CORDON_EXIT_SETUP (125): the command never runs
 * unconfined (fail closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"

static int load(int plan_fd, struct darwin_plan *p, struct cordon_err *e) {
  size_t len = 0;
  char *text = cordon_read_all(plan_fd, &len);
  close(plan_fd);
  if (!text) { cordon_err_set(e, "plan", "read", errno ? errno : EFBIG); return -1; }
  return darwin_plan_parse(text, len, p, e);
}

static int step_cwd(const struct darwin_plan *p, struct cordon_err *e) {
  if (chdir(p->cwd) == 0) return 0;
  cordon_err_set(e, "cwd", "chdir", errno);
  strncpy(e->detail, p->cwd, sizeof e->detail - 1);
  return -1;
}

static int prepare(const struct darwin_plan *p, int status_fd, struct darwin_applied *a, struct cordon_err *e) {
  if (darwin_harden(a, e) || darwin_session(e) || step_cwd(p, e)) return -1;
  if (darwin_close_fds(status_fd, e) || darwin_rlimits(p, e)) return -1;
  a->dyld_scrubbed = darwin_scrub_dyld(p->envp);
  if (!p->seatbelt) return 0;
  if (darwin_refuse_nested(e) || darwin_seatbelt_apply(p->profile, e)) return -1;
  a->seatbelt = 1;
  return 0;
}

int darwin_launcher_run(int plan_fd, int status_fd) {
  struct darwin_plan plan;
  struct darwin_applied applied;
  struct cordon_err err;
  memset(&applied, 0, sizeof applied);
  memset(&err, 0, sizeof err);
  /* The plan and status must not be the command's stdio; the status fd
   * closes on exec, so the caller reads end of file once the command runs. */
  if (plan_fd < 3 || status_fd < 3 || plan_fd == status_fd || fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0) return CORDON_EXIT_SETUP;
  if (load(plan_fd, &plan, &err) || prepare(&plan, status_fd, &applied, &err)) {
    cordon_record_error(status_fd, &err);
    return CORDON_EXIT_SETUP;
  }
  darwin_status_ok(status_fd, &applied);
  darwin_exec(&plan, &err);
  cordon_record_error(status_fd, &err);
  return err.err == ENOENT ? CORDON_EXIT_NOT_FOUND : CORDON_EXIT_CANNOT_EXECUTE;
}
