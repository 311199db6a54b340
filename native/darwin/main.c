/*
 * main.c — cordon-launcher on macOS: `cordon-launcher --plan-fd 3
 * --status-fd 4`, one confined command (launcher.c). Exec'd fresh by the
 * TypeScript side with an empty environment, so no DYLD_* variable reaches
 * this process before it has confined anything.
 */
#include <stdlib.h>
#include <string.h>
#include "cordon-wire.h"
#include "launcher.h"

/* The descriptor after `flag`, or -1 (refused by darwin_launcher_run). */
static int fd_arg(int argc, char **argv, const char *flag) {
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], flag) != 0) continue;
    char *end;
    long fd = strtol(argv[i + 1], &end, 10);
    return *argv[i + 1] && !*end && fd >= 0 && fd <= 65535 ? (int)fd : -1;
  }
  return -1;
}

int main(int argc, char **argv) {
  return darwin_launcher_run(fd_arg(argc, argv, CORDON_ARG_PLAN_FD), fd_arg(argc, argv, CORDON_ARG_STATUS_FD));
}
