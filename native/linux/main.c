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
#include <string.h>
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"
#include "zygote.h"

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], CORDON_ARG_ZYGOTE) == 0) return zygote_main();
  return launcher_run(cordon_fd_arg(argc, argv, CORDON_ARG_PLAN_FD), cordon_fd_arg(argc, argv, CORDON_ARG_STATUS_FD));
}
