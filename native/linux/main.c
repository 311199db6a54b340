/*
 * main.c — the entry point of cordon-launcher, which has two modes:
 *
 *   cordon-launcher --plan-fd N --status-fd M   one confined command
 *                                               (launcher.c)
 *   cordon-launcher --zygote                    a spawn server that forks a
 *                                               launcher per command
 *                                               (zygote.c; fds 3 and 4)
 *
 * Either way the process was exec'd fresh, with an empty environment, by
 * the addon (posix_spawn) or by the zygote's child: it is single-threaded,
 * so none of the restrictions on code after fork() in a multi-threaded
 * parent apply (signal-safety(7)), and being a static PIE no LD_* variable
 * can inject code into it before it confines anything.
 */
#include <stdlib.h>
#include <string.h>
#include "cordon-wire.h"
#include "launcher.h"
#include "zygote.h"

/* The descriptor after `flag`, or -1 (which launcher_run refuses, as it
 * refuses 0..2: the plan and status must not be the command's stdio). */
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
  if (argc == 2 && strcmp(argv[1], CORDON_ARG_ZYGOTE) == 0) return zygote_main();
  return launcher_run(fd_arg(argc, argv, CORDON_ARG_PLAN_FD), fd_arg(argc, argv, CORDON_ARG_STATUS_FD));
}
