/*
 * probe.h — shared plumbing of the escape probes.
 *
 * A probe runs one attempt and prints one line: `OK` (optionally followed by
 * a detail) when the attempt worked, or the errno name (`EACCES`) of the
 * call under test when it failed. A failure in a preparation step that is
 * not under test prints `SETUP:<step>:<ERRNO>` so it is never mistaken for
 * the denial being asserted. Exit status 0 in both cases; 2 on bad usage.
 */
#ifndef CORDON_PROBE_H
#define CORDON_PROBE_H
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct probe_cmd {
  const char *name;
  int argc; /* arguments the command needs */
  int (*run)(char **argv);
};

/* Print the outcome of the call under test: rc < 0 means it failed with errno. */
static inline int outcome(long rc) {
  if (rc < 0) printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "EUNKNOWN");
  else printf("OK\n");
  return 0;
}

static inline int setup_failed(const char *step) {
  printf("SETUP:%s:%s\n", step, strerrorname_np(errno) ? strerrorname_np(errno) : "EUNKNOWN");
  return 0;
}

/* Dispatch `probe NAME ARGS...` to the matching command of a table. */
static inline int probe_main(const struct probe_cmd *cmds, int argc, char **argv) {
  if (argc >= 2)
    for (const struct probe_cmd *c = cmds; c->name; c++)
      if (strcmp(c->name, argv[1]) == 0 && argc - 2 >= c->argc) {
        int rc = c->run(argv + 2);
        fflush(stdout);
        return rc;
      }
  fprintf(stderr, "usage: %s COMMAND ARGS... (unknown or incomplete command)\n", argv[0]);
  return 2;
}
#endif
