/*
 * plan.c — turn the JSON plan into `struct plan`.
 *
 * Unknown keys are an error, not ignored: if a newer TypeScript side asks for
 * a protection this launcher does not know, silently skipping it would be an
 * unconfined run that the report claims is confined.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "launcher.h"

static int bad(struct cordon_err *e, const char *what) {
  cordon_err_set(e, "plan", "parse", EINVAL);
  strncpy(e->detail, what, sizeof e->detail - 1);
  return -1;
}

static int only_keys(const struct json *obj, const char *const *allowed, struct cordon_err *e) {
  for (const struct json *c = obj->child; c; c = c->next) {
    int ok = 0;
    for (const char *const *k = allowed; *k; k++) ok |= strcmp(*k, c->key) == 0;
    if (!ok) return bad(e, c->key);
  }
  return 0;
}

static char **string_array(const struct json *arr, int allow_empty) {
  size_t n = json_len(arr), i = 0;
  char **out;
  if (!arr || arr->type != J_ARR || (!allow_empty && n == 0)) return NULL;
  out = calloc(n + 1, sizeof *out);
  for (const struct json *c = arr->child; out && c; c = c->next) {
    if (c->type != J_STR) { free(out); return NULL; }
    out[i++] = c->str;
  }
  return out;
}

static int get_bool(const struct json *o, const char *k, int dflt) {
  const struct json *v = json_get(o, k);
  return v && v->type == J_BOOL ? v->boolean : dflt;
}

/* 64-bit masks travel as hex strings: a JSON number (a double) would lose
 * precision above 2^53 and silently change a seccomp comparison. */
static int get_u64(const struct json *o, const char *k, uint64_t *out) {
  const struct json *v = json_get(o, k);
  char *end;
  if (!v) return 0;
  if (v->type != J_STR) return -1;
  errno = 0;
  *out = strtoull(v->str, &end, 0);
  return (errno || *end || end == v->str) ? -1 : 0;
}

static int rlimit_resource(const char *name) {
  static const struct { const char *n; int r; } map[] = {
    {"core", RLIMIT_CORE}, {"nproc", RLIMIT_NPROC}, {"nofile", RLIMIT_NOFILE},
    {"fsize", RLIMIT_FSIZE}, {"as", RLIMIT_AS}, {"cpu", RLIMIT_CPU},
    {"stack", RLIMIT_STACK}, {"memlock", RLIMIT_MEMLOCK}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(map[i].n, name) == 0) return map[i].r;
  return -1;
}

static int parse_rlimits(const struct json *arr, struct plan *p, struct cordon_err *e) {
  if (!arr) return 0;
  if (arr->type != J_ARR || json_len(arr) > 8) return bad(e, "rlimits");
  for (const struct json *c = arr->child; c; c = c->next) {
    const struct json *n = json_get(c, "resource");
    struct rlim *r = &p->rlimits[p->n_rlimits++];
    if (!n || n->type != J_STR || (r->resource = rlimit_resource(n->str)) < 0) return bad(e, "rlimits.resource");
    if (get_u64(c, "soft", &r->soft) || get_u64(c, "hard", &r->hard)) return bad(e, "rlimits.value");
  }
  return 0;
}

static unsigned access_bits(const struct json *arr) {
  unsigned bits = 0;
  for (const struct json *c = arr ? arr->child : NULL; c; c = c->next) {
    if (c->type != J_STR) return 0;
    if (!strcmp(c->str, "read")) bits |= ACC_READ;
    else if (!strcmp(c->str, "write")) bits |= ACC_WRITE;
    else if (!strcmp(c->str, "dev")) bits |= ACC_DEV;
    else if (!strcmp(c->str, "exec")) bits |= ACC_EXEC;
    else return 0;
  }
  return bits;
}

static int parse_landlock(const struct json *ll, struct plan *p, struct cordon_err *e) {
  static const char *const keys[] = {"rules", "networkOff", "scopeSignal", "scopeAbstractUnix", "log", NULL};
  const struct json *rules;
  size_t i = 0;
  if (!ll || ll->type == J_NULL) return 0;
  if (ll->type != J_OBJ) return bad(e, "landlock");
  if (only_keys(ll, keys, e)) return -1;
  rules = json_get(ll, "rules");
  if (!rules || rules->type != J_ARR) return bad(e, "landlock.rules");
  p->landlock = 1;
  p->n_ll_rules = json_len(rules);
  p->ll_rules = calloc(p->n_ll_rules + 1, sizeof *p->ll_rules);
  for (const struct json *c = rules->child; c; c = c->next, i++) {
    const struct json *path = json_get(c, "path");
    if (!path || path->type != J_STR || path->str[0] != '/') return bad(e, "landlock.rules.path");
    p->ll_rules[i].path = path->str;
    if (!(p->ll_rules[i].access = access_bits(json_get(c, "access")))) return bad(e, "landlock.rules.access");
  }
  p->ll_network_off = get_bool(ll, "networkOff", 1);
  p->ll_scope_signal = get_bool(ll, "scopeSignal", 1);
  p->ll_scope_abstract_unix = get_bool(ll, "scopeAbstractUnix", 1);
  p->ll_log = get_bool(ll, "log", 1);
  return 0;
}

static int parse_op(const char *s) {
  if (!strcmp(s, "eq")) return OP_EQ;
  if (!strcmp(s, "ne")) return OP_NE;
  if (!strcmp(s, "masked_eq")) return OP_MASKED_EQ;
  if (!strcmp(s, "gt")) return OP_GT;
  if (!strcmp(s, "lt")) return OP_LT;
  return 0;
}

static int parse_sc_rule(const struct json *c, struct sc_rule *r) {
  const struct json *name = json_get(c, "syscall"), *action = json_get(c, "action");
  const struct json *err = json_get(c, "errno"), *args = json_get(c, "args");
  if (!name || name->type != J_STR || !action || action->type != J_STR) return -1;
  r->syscall = name->str;
  if (!strcmp(action->str, "kill")) r->action = SC_KILL;
  else if (!strcmp(action->str, "errno") && err && err->type == J_NUM) { r->action = SC_ERRNO; r->err = (int)err->num; }
  else return -1;
  if (args && (args->type != J_ARR || json_len(args) > 3)) return -1;
  for (const struct json *a = args ? args->child : NULL; a; a = a->next) {
    struct sc_arg *x = &r->args[r->nargs++];
    const struct json *idx = json_get(a, "arg"), *op = json_get(a, "op");
    if (!idx || idx->type != J_NUM || idx->num < 0 || idx->num > 5 || !op || op->type != J_STR) return -1;
    x->arg = (unsigned)idx->num;
    x->mask = ~(uint64_t)0;
    if (!(x->op = parse_op(op->str)) || get_u64(a, "value", &x->value) || get_u64(a, "mask", &x->mask)) return -1;
  }
  return 0;
}

static int parse_seccomp(const struct json *sc, struct plan *p, struct cordon_err *e) {
  const struct json *rules;
  size_t i = 0;
  if (!sc || sc->type == J_NULL) return 0;
  rules = json_get(sc, "rules");
  if (sc->type != J_OBJ || !rules || rules->type != J_ARR) return bad(e, "seccomp");
  p->seccomp = 1;
  p->n_sc_rules = json_len(rules);
  p->sc_rules = calloc(p->n_sc_rules + 1, sizeof *p->sc_rules);
  for (const struct json *c = rules->child; c; c = c->next, i++)
    if (parse_sc_rule(c, &p->sc_rules[i])) return bad(e, "seccomp.rules");
  return 0;
}

static int parse_keep_fds(const struct json *arr, struct plan *p, struct cordon_err *e) {
  if (!arr) return 0;
  if (arr->type != J_ARR || json_len(arr) > 16) return bad(e, "keepFds");
  for (const struct json *c = arr->child; c; c = c->next) {
    if (c->type != J_NUM || c->num < 3 || c->num > 65535) return bad(e, "keepFds");
    p->keep_fds[p->n_keep++] = (int)c->num;
  }
  return 0;
}

int plan_from_json(const struct json *root, struct plan *p, struct cordon_err *e) {
  static const char *const keys[] = {"v", "argv", "env", "cwd", "keepFds", "compat", "rlimits", "landlock", "seccomp", NULL};
  const struct json *v = json_get(root, "v"), *cwd = json_get(root, "cwd"), *compat = json_get(root, "compat");
  memset(p, 0, sizeof *p);
  if (!root || root->type != J_OBJ) return bad(e, "plan");
  if (only_keys(root, keys, e)) return -1;
  if (!v || v->type != J_NUM || v->num != 1) return bad(e, "v (plan version)");
  if (!(p->argv = string_array(json_get(root, "argv"), 0))) return bad(e, "argv");
  if (!(p->envp = string_array(json_get(root, "env"), 1))) return bad(e, "env");
  if (!cwd || cwd->type != J_STR) return bad(e, "cwd");
  p->cwd = cwd->str;
  if (!compat || compat->type != J_STR) return bad(e, "compat");
  p->hard = strcmp(compat->str, "hard") == 0;
  if (parse_keep_fds(json_get(root, "keepFds"), p, e) || parse_rlimits(json_get(root, "rlimits"), p, e)) return -1;
  if (parse_landlock(json_get(root, "landlock"), p, e)) return -1;
  return parse_seccomp(json_get(root, "seccomp"), p, e);
}
