/*
 * plan.c — read the macOS launcher's plan: NUL-terminated fields.
 *
 *   "cordon-darwin-plan" "1" MODE PROFILE CWD
 *   N_RLIMITS (RESOURCE SOFT HARD)×N  ARGC ARGV×ARGC  ENVC ENV×ENVC
 *
 * MODE is "seatbelt" or "none". Every field must end in a NUL inside the
 * buffer and nothing may follow the last one: a truncated or padded plan
 * is refused (fail closed) rather than run half-understood.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "launcher.h"

/* More argv or environment entries than this is not a plan cordon wrote. */
#define MAX_LIST 65536

struct cursor { char *at; char *end; };

static char *field(struct cursor *c) {
  if (c->at >= c->end) return NULL;
  char *nul = memchr(c->at, 0, (size_t)(c->end - c->at));
  if (!nul) return NULL;
  char *f = c->at;
  c->at = nul + 1;
  return f;
}

static int number(struct cursor *c, unsigned long long max, unsigned long long *out) {
  char *f = field(c), *end;
  if (!f || !*f || *f == '-') return -1;
  errno = 0;
  *out = strtoull(f, &end, 10);
  return errno || *end || *out > max ? -1 : 0;
}

static int resource_of(const char *name) {
  static const struct { const char *name; int resource; } table[] = {
    {"nproc", RLIMIT_NPROC}, {"nofile", RLIMIT_NOFILE}, {"fsize", RLIMIT_FSIZE}, {"as", RLIMIT_AS}, {"cpu", RLIMIT_CPU},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(name, table[i].name) == 0) return table[i].resource;
  return -1;
}

static int rlimits(struct cursor *c, struct darwin_plan *p) {
  unsigned long long n, soft, hard;
  if (number(c, sizeof p->rlimits / sizeof p->rlimits[0], &n)) return -1;
  for (p->n_rlimits = 0; p->n_rlimits < n; p->n_rlimits++) {
    char *name = field(c);
    int r = name ? resource_of(name) : -1;
    if (r < 0 || number(c, UINT64_MAX, &soft) || number(c, UINT64_MAX, &hard)) return -1;
    p->rlimits[p->n_rlimits] = (struct darwin_rlimit){r, soft, hard};
  }
  return 0;
}

/* A NULL-terminated vector of the next N fields (N ≥ min). */
static char **list(struct cursor *c, unsigned long long min) {
  unsigned long long n;
  if (number(c, MAX_LIST, &n) || n < min) return NULL;
  char **v = calloc((size_t)n + 1, sizeof *v);
  for (size_t i = 0; v && i < n; i++)
    if (!(v[i] = field(c))) { free(v); return NULL; }
  return v;
}

int darwin_plan_parse(char *buf, size_t len, struct darwin_plan *p, struct cordon_err *e) {
  struct cursor c = {buf, buf + len};
  const char *magic = field(&c), *version = field(&c), *mode = field(&c);
  memset(p, 0, sizeof *p);
  cordon_err_set(e, "plan", "parse", EINVAL);
  if (!magic || strcmp(magic, DARWIN_PLAN_MAGIC) || !version || strcmp(version, DARWIN_PLAN_VERSION)) {
    strncpy(e->detail, "not a plan of this launcher's version", sizeof e->detail - 1);
    return -1;
  }
  if (!mode || (strcmp(mode, "seatbelt") && strcmp(mode, "none"))) return -1;
  p->seatbelt = strcmp(mode, "seatbelt") == 0;
  p->profile = field(&c);
  p->cwd = field(&c);
  if (!p->profile || !p->cwd || (p->seatbelt && !*p->profile) || rlimits(&c, p)) return -1;
  if (!(p->argv = list(&c, 1)) || !(p->envp = list(&c, 0)) || c.at != c.end) {
    strncpy(e->detail, "malformed field list", sizeof e->detail - 1);
    return -1;
  }
  return 0;
}
