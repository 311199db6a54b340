/*
 * launcher.h — internal contract of the macOS launcher (native/darwin).
 *
 * Like the Linux launcher it is exec'd fresh by the TypeScript side with an
 * empty environment, reads one plan from fd 3, reports on fd 4
 * (close-on-exec) and execve()s the command; the descriptor numbers, exit
 * statuses and record field names are cordon-wire.h's. The plan is not
 * JSON: a sequence of NUL-terminated fields (plan.c), since paths, argv and
 * environment strings can never contain a NUL, and the launcher needs no
 * parser beyond splitting on it.
 */
#ifndef CORDON_DARWIN_LAUNCHER_H
#define CORDON_DARWIN_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include "cordon.h"

/* The first field of a plan, and the only version this launcher reads. */
#define DARWIN_PLAN_MAGIC "cordon-darwin-plan"
#define DARWIN_PLAN_VERSION "1"

struct darwin_rlimit { int resource; uint64_t soft, hard; };

struct darwin_plan {
  int seatbelt;            /* 1: apply `profile`; 0: the profile asked for no sandbox */
  const char *profile;     /* SBPL text, as generated (src/platform/darwin/sbpl.ts) */
  const char *cwd;
  struct darwin_rlimit rlimits[8]; size_t n_rlimits;
  char **argv;             /* NULL-terminated */
  char **envp;             /* NULL-terminated */
};

/* What was applied, for the "ok" record. */
struct darwin_applied {
  int seatbelt;            /* the profile is in force */
  int deny_attach;         /* PT_DENY_ATTACH on the launcher */
  int core_zero;           /* RLIMIT_CORE 0 */
  int dyld_scrubbed;       /* DYLD_* variables taken out of the command's environment */
};

int darwin_plan_parse(char *buf, size_t len, struct darwin_plan *p, struct cordon_err *e);

/* seatbelt.c */
int darwin_refuse_nested(struct cordon_err *e);
int darwin_seatbelt_apply(const char *profile, struct cordon_err *e);

/* steps.c */
int darwin_harden(struct darwin_applied *a, struct cordon_err *e);
int darwin_session(struct cordon_err *e);
int darwin_close_fds(int status_fd, struct cordon_err *e);
int darwin_rlimits(const struct darwin_plan *p, struct cordon_err *e);
int darwin_scrub_dyld(char **envp);
int darwin_exec(const struct darwin_plan *p, struct cordon_err *e);

/* status.c (the error record is cordon_record_error, native/common/launcher-io.c) */
void darwin_status_ok(int fd, const struct darwin_applied *a);

/* launcher.c: returns only on failure, with the exit status to use. */
int darwin_launcher_run(int plan_fd, int status_fd);

#endif
