/* err.c — the one way to record a failure: step, syscall, errno. */
#include "cordon.h"

void cordon_err_set(struct cordon_err *e, const char *step, const char *syscall, int err) {
  e->step = step;
  e->syscall = syscall;
  e->err = err;
  e->detail[0] = 0;
}
