/*
 * launcher.c — cordon's pre-exec sequence on Linux: one confined command.
 *
 * Entered from main.c (`cordon-launcher --plan-fd N --status-fd M`) or in a
 * child of the zygote (zygote-child.c), on an already-open plan fd and
 * status fd. Reads the plan (JSON) from the plan fd until EOF, then
 * applies, in this order:
 *   setsid → parent death signal → cwd → close fds → rlimits →
 *   capabilities → no_new_privs → fork; in the child: its own session and
 *   controlling terminal when cordon made it a PTY (pty.c) → Landlock →
 *   seccomp (last) → execve; the parent stays as the command's supervisor
 *   (supervise.c), outside the command's Landlock domain so that the
 *   command cannot signal it.
 * The order matters: capabilities are dropped before no_new_privs (so a
 * root caller cannot re-gain them), Landlock needs no_new_privs when
 * unprivileged, and seccomp goes last so the filter never blocks a setup
 * call. Any failure is reported on the status fd and the launcher exits
 * CORDON_EXIT_SETUP (125).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"

static int load_plan(int plan_fd, struct plan *p, struct cordon_err *e) {
  size_t len = 0;
  const char *at = NULL;
  char *text = cordon_read_all(plan_fd, &len);
  close(plan_fd);
  if (!text) { cordon_err_set(e, "plan", "read", errno ? errno : EFBIG); return -1; }
  struct json *root = json_parse(text, len, &at);
  if (!root) {
    cordon_err_set(e, "plan", "parse", EINVAL);
    strncpy(e->detail, "malformed JSON", sizeof e->detail - 1);
    return -1;
  }
  return plan_from_json(root, p, e);
}

static int step_cwd(const struct plan *p, struct cordon_err *e) {
  if (chdir(p->cwd) < 0) { cordon_err_set(e, "cwd", "chdir", errno); strncpy(e->detail, p->cwd, sizeof e->detail - 1); return -1; }
  return 0;
}

/* Process-wide steps, inherited by the supervisor and the command alike.
 * Landlock and seccomp follow in the command's process only (supervise.c). */
static int run_steps(const struct plan *p, int status_fd, struct applied *a, struct cordon_err *e) {
  if (step_setsid(e) || step_parent_death(e) || step_cwd(p, e)) return -1;
  if (step_close_fds(p, status_fd, e) || step_rlimits(p, e)) return -1;
  if (step_drop_caps(a, e) || step_no_new_privs(a, e)) return -1;
  return 0;
}

/* Returns only on failure, with the exit status to use. */
int launcher_run(int plan_fd, int status_fd) {
  struct plan plan;
  struct applied applied;
  struct cordon_err err;
  memset(&applied, 0, sizeof applied);
  memset(&err, 0, sizeof err);
  if (plan_fd < 3 || status_fd < 3 || fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0) return CORDON_EXIT_SETUP;
  if (load_plan(plan_fd, &plan, &err) == 0 && run_steps(&plan, status_fd, &applied, &err) == 0) {
    step_supervise(&plan, status_fd, &applied, &err); /* returns only on failure */
  }
  status_write_err(status_fd, &err);
  return CORDON_EXIT_SETUP;
}
