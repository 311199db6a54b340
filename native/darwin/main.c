/*
 * main.c — cordon-launcher on macOS: `cordon-launcher --plan-fd 3
 * --status-fd 4`, one confined command (launcher.c). Exec'd fresh by the
 * TypeScript side with an empty environment, so no DYLD_* variable reaches
 * this process before it has confined anything.
 */
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"

int main(int argc, char **argv) {
  return darwin_launcher_run(cordon_fd_arg(argc, argv, CORDON_ARG_PLAN_FD), cordon_fd_arg(argc, argv, CORDON_ARG_STATUS_FD));
}
