/*
 * exec.c — find and execve the command.
 *
 * PATH lookup uses the *sandbox* environment's PATH (never the caller's) and
 * happens after every restriction, so a program the sandbox cannot read or
 * execute is simply not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "launcher.h"

static const char *env_path(char **envp) {
  for (char **v = envp; *v; v++)
    if (strncmp(*v, "PATH=", 5) == 0) return *v + 5;
  /* No PATH in the allowlisted environment: the default of execvp(3). */
  return "/usr/local/bin:/usr/bin:/bin";
}

/* Try each PATH entry like execvp(3), remembering EACCES over ENOENT so the
 * parent learns "found but not executable" rather than "not found". */
static int search_path(const struct plan *p) {
  const char *path = env_path(p->envp), *name = p->argv[0];
  char full[PATH_MAX];
  int saw_eacces = 0;
  while (*path) {
    const char *colon = strchrnul(path, ':');
    int len = (int)(colon - path);
    /* An empty or relative entry would resolve against the cwd, which is
     * often a writable workspace the sandboxed code controls: skip it. */
    if (len > 0 && path[0] == '/' && snprintf(full, sizeof full, "%.*s/%s", len, path, name) < (int)sizeof full) {
      execve(full, p->argv, p->envp);
      if (errno == EACCES) saw_eacces = 1;
      else if (errno != ENOENT && errno != ENOTDIR) return -1;
    }
    path = *colon ? colon + 1 : colon;
  }
  errno = saw_eacces ? EACCES : ENOENT;
  return -1;
}

int step_exec(const struct plan *p, struct cordon_err *e) {
  if (strchr(p->argv[0], '/')) execve(p->argv[0], p->argv, p->envp);
  else search_path(p);
  cordon_err_set(e, "execve", "execve", errno);
  snprintf(e->detail, sizeof e->detail, "%s", p->argv[0]);
  return -1;
}
