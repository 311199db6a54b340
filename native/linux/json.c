/*
 * json.c — a small, strict JSON reader for the launcher's plan.
 *
 * Why not a library: the launcher must stay tiny and statically linkable, and
 * the plan comes from cordon's own TypeScript side (already validated by zod).
 * The parser is still strict (RFC 8259 grammar, depth limit, no trailing
 * garbage) so a corrupted plan fails closed instead of running half-applied.
 */
#include <stdlib.h>
#include <string.h>
#include "launcher.h"

#define MAX_DEPTH 32 /* the plan is shallow; a deep document is an error */

struct reader { const char *s; const char *end; const char *err; int depth; };

static struct json *parse_value(struct reader *r);

static void skip_ws(struct reader *r) {
  while (r->s < r->end && (*r->s == ' ' || *r->s == '\n' || *r->s == '\r' || *r->s == '\t')) r->s++;
}

static struct json *fail(struct reader *r) {
  if (!r->err) r->err = r->s;
  return NULL;
}

static struct json *node(enum json_type t) {
  struct json *j = calloc(1, sizeof *j);
  if (j) j->type = t;
  return j;
}

static int literal(struct reader *r, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->s) < n || memcmp(r->s, word, n) != 0) return 0;
  r->s += n;
  return 1;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return 0;
  }
  *out = v;
  return 1;
}

/* Encode a code point as UTF-8. NUL is refused: a path or argv with an
 * embedded NUL would be silently truncated by the kernel. */
static int put_utf8(char **o, unsigned cp) {
  char *d = *o;
  if (cp == 0) return 0;
  if (cp < 0x80) { *d++ = (char)cp; }
  else if (cp < 0x800) { *d++ = (char)(0xC0 | (cp >> 6)); *d++ = (char)(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) {
    *d++ = (char)(0xE0 | (cp >> 12)); *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *d++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *d++ = (char)(0xF0 | (cp >> 18)); *d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *d++ = (char)(0x80 | ((cp >> 6) & 0x3F)); *d++ = (char)(0x80 | (cp & 0x3F));
  }
  *o = d;
  return 1;
}

static int escape(struct reader *r, char **o) {
  char c = *r->s++;
  unsigned cp;
  switch (c) {
    case '"': case '\\': case '/': *(*o)++ = c; return 1;
    case 'b': *(*o)++ = '\b'; return 1;
    case 'f': *(*o)++ = '\f'; return 1;
    case 'n': *(*o)++ = '\n'; return 1;
    case 'r': *(*o)++ = '\r'; return 1;
    case 't': *(*o)++ = '\t'; return 1;
    case 'u':
      if (r->end - r->s < 4 || !hex4(r->s, &cp)) return 0;
      r->s += 4;
      if (cp >= 0xD800 && cp < 0xDC00) { /* surrogate pair */
        unsigned lo;
        if (r->end - r->s < 6 || r->s[0] != '\\' || r->s[1] != 'u' || !hex4(r->s + 2, &lo)) return 0;
        if (lo < 0xDC00 || lo > 0xDFFF) return 0;
        r->s += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        return 0;
      }
      return put_utf8(o, cp);
    default: return 0;
  }
}

static char *parse_string_raw(struct reader *r) {
  if (r->s >= r->end || *r->s != '"') return NULL;
  r->s++;
  /* Output is never longer than the quoted input: size the buffer to that
   * span, not to the rest of the document (a plan has hundreds of strings;
   * oversized buffers cost a page fault each in the launcher). */
  const char *close = r->s;
  while (close < r->end && *close != '"') close += (*close == '\\' && close + 1 < r->end) ? 2 : 1;
  char *out = malloc((size_t)(close - r->s) + 1), *o = out;
  if (!out) return NULL;
  while (r->s < r->end && *r->s != '"') {
    unsigned char c = (unsigned char)*r->s;
    if (c < 0x20) { free(out); return NULL; } /* control chars must be escaped */
    if (c == '\\') {
      r->s++;
      if (r->s >= r->end || !escape(r, &o)) { free(out); return NULL; }
    } else {
      *o++ = (char)c;
      r->s++;
    }
  }
  if (r->s >= r->end) { free(out); return NULL; }
  r->s++;
  *o = 0;
  return out;
}

static struct json *parse_number(struct reader *r) {
  char *endp;
  struct json *j;
  if (r->s < r->end && *r->s != '-' && (*r->s < '0' || *r->s > '9')) return fail(r);
  j = node(J_NUM);
  if (!j) return fail(r);
  /* The document is NUL-terminated by the reader in launcher.c. */
  j->num = strtod(r->s, &endp);
  if (endp == r->s || endp > r->end) { free(j); return fail(r); }
  r->s = endp;
  return j;
}

static struct json *parse_container(struct reader *r, int is_obj) {
  struct json *j = node(is_obj ? J_OBJ : J_ARR), **tail;
  char close = is_obj ? '}' : ']';
  if (!j || ++r->depth > MAX_DEPTH) return fail(r);
  tail = &j->child;
  r->s++;
  skip_ws(r);
  if (r->s < r->end && *r->s == close) { r->s++; r->depth--; return j; }
  for (;;) {
    char *key = NULL;
    skip_ws(r);
    if (is_obj) {
      key = parse_string_raw(r);
      skip_ws(r);
      if (!key || r->s >= r->end || *r->s++ != ':') return fail(r);
    }
    struct json *v = parse_value(r);
    if (!v) return fail(r);
    v->key = key;
    *tail = v;
    tail = &v->next;
    skip_ws(r);
    if (r->s < r->end && *r->s == ',') { r->s++; continue; }
    if (r->s < r->end && *r->s == close) { r->s++; r->depth--; return j; }
    return fail(r);
  }
}

static struct json *parse_value(struct reader *r) {
  struct json *j;
  skip_ws(r);
  if (r->s >= r->end) return fail(r);
  switch (*r->s) {
    case '{': return parse_container(r, 1);
    case '[': return parse_container(r, 0);
    case '"':
      j = node(J_STR);
      if (!j || !(j->str = parse_string_raw(r))) return fail(r);
      return j;
    case 't': case 'f':
      j = node(J_BOOL);
      if (!j) return fail(r);
      if (literal(r, "true")) j->boolean = 1;
      else if (!literal(r, "false")) return fail(r);
      return j;
    case 'n':
      if (!literal(r, "null")) return fail(r);
      return node(J_NULL);
    default:
      return parse_number(r);
  }
}

struct json *json_parse(const char *text, size_t len, const char **error_at) {
  struct reader r = { text, text + len, NULL, 0 };
  struct json *root = parse_value(&r);
  skip_ws(&r);
  if (root && r.s != r.end) root = fail(&r); /* trailing garbage */
  if (!root && error_at) *error_at = r.err;
  return root;
}

const struct json *json_get(const struct json *obj, const char *key) {
  if (!obj || obj->type != J_OBJ) return NULL;
  for (const struct json *c = obj->child; c; c = c->next)
    if (c->key && strcmp(c->key, key) == 0) return c;
  return NULL;
}

size_t json_len(const struct json *arr) {
  size_t n = 0;
  for (const struct json *c = arr ? arr->child : NULL; c; c = c->next) n++;
  return n;
}
