/*
 * acl.c — the sandbox SID's access to the filesystem, for one launch, and
 * putting everything back afterwards.
 *
 * For the launch (MSDN, SetEntriesInAcl, SetSecurityInfo):
 *  - write roots: an inheritable allow ACE for the sandbox SID: read,
 *    write, execute, DELETE — never WRITE_DAC or WRITE_OWNER (the command
 *    could grant itself more), never FILE_DELETE_CHILD (it deletes a child
 *    whatever the child's own DACL says, which would undo the denies below);
 *  - protected paths: an inheritable deny ACE for the SID (write, append,
 *    attributes, DELETE, WRITE_DAC, WRITE_OWNER). An explicit deny comes
 *    before the inherited allow in canonical order, so it wins;
 *  - their ancestors inside a write root: deny DELETE on the object itself,
 *    so `.git` cannot be renamed away and replaced;
 *  - low integrity: the write roots get a low mandatory label (no-write-up
 *    is then no obstacle there), and deny-read paths a medium label with
 *    no-read-up, which a low-integrity process cannot read through
 *    (MSDN, "Mandatory Integrity Control").
 *
 * Crash safety: every change is written to a journal (JOURNAL\SID.acl) and
 * flushed BEFORE it is made; the journal is held open with no sharing while
 * this launcher lives, and deleted once everything is restored. If the
 * launcher dies first (cordon's process was killed: libuv's job kills the
 * launcher, and this launcher's job then kills the command), the changes
 * stay until the next launch, which sweeps every journal it can open
 * exclusively (its owner is gone) and undoes it. Until then the ACEs that
 * remain name a SID that no live token carries: an allow ACE for it grants
 * nobody anything. What matters is the labels: a write root left labeled
 * low is writable by any low-integrity process of the user until the sweep
 * (docs/windows.md, "Crash safety").
 */
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "launcher.h"

struct journal {
  HANDLE file;
  WCHAR path[MAX_PATH + 64];
};

#define WRITE_RIGHTS (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
#define DENY_RIGHTS (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER | FILE_DELETE_CHILD)
#define LOW_LABEL L"S:(ML;OICI;NW;;;LW)"
#define NO_READ_UP_LABEL L"S:(ML;OICI;NWNR;;;ME)"

/* ---------- the journal ---------- */

static int journal_line(struct journal *j, const WCHAR *kind, const WCHAR *path, const WCHAR *extra, struct werr *e) {
  if (!extra) extra = L"";
  /* Sized for the line: a write root may be a long path (\\?\ form, up to 32,767 characters). */
  size_t chars = wcslen(kind) + wcslen(path) + wcslen(extra) + 4;
  WCHAR *line = malloc(chars * sizeof(WCHAR));
  char *utf8 = malloc(chars * 3);
  int n = line ? _snwprintf(line, chars, L"%ls\t%ls\t%ls\n", kind, path, extra) : -1;
  int len = n > 0 && utf8 ? WideCharToMultiByte(CP_UTF8, 0, line, n, utf8, (int)(chars * 3), NULL, NULL) : 0;
  DWORD w = 0;
  /* Flushed before the change it describes is made: a crash never leaves a change the journal lacks. */
  BOOL ok = len > 0 && WriteFile(j->file, utf8, (DWORD)len, &w, NULL) && w == (DWORD)len && FlushFileBuffers(j->file);
  DWORD err = GetLastError();
  free(line);
  free(utf8);
  if (!ok) { werr_set(e, "acl", "WriteFile(journal)", len > 0 ? err : ERROR_NOT_ENOUGH_MEMORY); return werr_detail(e, path); }
  return 0;
}

static struct journal *journal_open(const WCHAR *dir, const WCHAR *sid, struct werr *e) {
  struct journal *j = calloc(1, sizeof *j);
  if (!j) { werr_set(e, "acl", "calloc", ERROR_NOT_ENOUGH_MEMORY); return NULL; }
  /* A name cut short would be a journal no sweep finds: refused instead. */
  if (_snwprintf(j->path, sizeof j->path / sizeof *j->path - 1, L"%ls\\%ls.acl", dir, sid) < 0) {
    werr_set(e, "acl", "journal path", ERROR_FILENAME_EXCED_RANGE);
    werr_detail(e, dir);
    free(j);
    return NULL;
  }
  CreateDirectoryW(dir, NULL);
  /* Share mode 0: no sweep can open (and undo) it while this launcher lives. */
  j->file = CreateFileW(j->path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  if (j->file == INVALID_HANDLE_VALUE) {
    werr_set(e, "acl", "CreateFileW(journal)", GetLastError());
    werr_detail(e, j->path);
    free(j);
    return NULL;
  }
  return j;
}

/* ---------- ACEs ---------- */

/*
 * A handle to change `path`'s security with. FILE_FLAG_OPEN_REPARSE_POINT:
 * a symlink or junction planted at a planned path is changed itself, never
 * the target it points to (which could be anything the user owns);
 * FILE_FLAG_BACKUP_SEMANTICS is what opens a directory (MSDN, CreateFile).
 * Handle-based Get/SetSecurityInfo rather than the Named variants: one
 * object for the read and the write, and a label can be read with
 * READ_CONTROL alone (Wine's GetNamedSecurityInfoW asks for more).
 */
static HANDLE open_object(const WCHAR *path, const char *step, struct werr *e) {
  HANDLE h = CreateFileW(path, READ_CONTROL | WRITE_DAC | WRITE_OWNER, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (h == INVALID_HANDLE_VALUE) { werr_set(e, step, "CreateFileW", GetLastError()); werr_detail(e, path); return NULL; }
  return h;
}

static int set_dacl(HANDLE h, const WCHAR *path, PACL acl, PSECURITY_DESCRIPTOR old, const char *call, struct werr *e) {
  SECURITY_DESCRIPTOR_CONTROL control = 0;
  DWORD revision = 0;
  GetSecurityDescriptorControl(old, &control, &revision);
  /* Keep the DACL's inheritance from its parent as it was (protected or not). */
  SECURITY_INFORMATION what = DACL_SECURITY_INFORMATION |
                              ((control & SE_DACL_PROTECTED) ? PROTECTED_DACL_SECURITY_INFORMATION : UNPROTECTED_DACL_SECURITY_INFORMATION);
  DWORD rc = SetSecurityInfo(h, SE_FILE_OBJECT, what, NULL, NULL, acl, NULL);
  if (rc != ERROR_SUCCESS) return werr_set(e, "acl", call, rc), werr_detail(e, path);
  return 0;
}

static int add_ace(const WCHAR *path, PSID sid, ACCESS_MODE mode, DWORD rights, DWORD inherit, struct werr *e) {
  PACL old = NULL, acl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  HANDLE h = open_object(path, "acl", e);
  if (!h) return -1;
  DWORD rc = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old, NULL, &sd);
  if (rc != ERROR_SUCCESS) { CloseHandle(h); return werr_set(e, "acl", "GetSecurityInfo(DACL)", rc), werr_detail(e, path); }
  EXPLICIT_ACCESS_W ea;
  ZeroMemory(&ea, sizeof ea);
  ea.grfAccessPermissions = rights;
  ea.grfAccessMode = mode;
  ea.grfInheritance = inherit;
  ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  ea.Trustee.TrusteeType = TRUSTEE_IS_GROUP;
  ea.Trustee.ptstrName = (LPWSTR)sid;
  /* SetEntriesInAcl keeps canonical order: explicit denies first, then explicit allows, then inherited ACEs. */
  rc = SetEntriesInAclW(1, &ea, old, &acl);
  int r = rc != ERROR_SUCCESS ? (werr_set(e, "acl", "SetEntriesInAclW", rc), werr_detail(e, path)) : set_dacl(h, path, acl, sd, "SetSecurityInfo(DACL)", e);
  LocalFree(acl);
  LocalFree(sd);
  CloseHandle(h);
  return r;
}

/* The DACL without this SID's explicit ACEs (inherited copies follow their parent). */
static int remove_aces(const WCHAR *path, PSID sid, struct werr *e) {
  PACL old = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  HANDLE h = open_object(path, "restore", e);
  if (!h) return e->code == ERROR_FILE_NOT_FOUND || e->code == ERROR_PATH_NOT_FOUND ? 0 : -1; /* gone: nothing left to undo */
  DWORD rc = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old, NULL, &sd);
  if (rc != ERROR_SUCCESS || !old) {
    CloseHandle(h);
    LocalFree(sd);
    return rc ? (werr_set(e, "restore", "GetSecurityInfo(DACL)", rc), werr_detail(e, path)) : 0;
  }
  PACL acl = LocalAlloc(LPTR, old->AclSize);
  int r = acl && InitializeAcl(acl, old->AclSize, ACL_REVISION) ? 0 : werr_set(e, "restore", "InitializeAcl", GetLastError());
  for (DWORD i = 0; r == 0 && i < old->AceCount; i++) {
    ACE_HEADER *ace = NULL;
    if (!GetAce(old, i, (void **)&ace)) { r = werr_set(e, "restore", "GetAce", GetLastError()); break; }
    /* ACCESS_ALLOWED_ACE and ACCESS_DENIED_ACE have the same layout: the SID starts at SidStart. */
    int ours = (ace->AceType == ACCESS_ALLOWED_ACE_TYPE || ace->AceType == ACCESS_DENIED_ACE_TYPE) && !(ace->AceFlags & INHERITED_ACE) &&
               EqualSid((PSID)&((ACCESS_ALLOWED_ACE *)ace)->SidStart, sid);
    if (!ours && !AddAce(acl, ACL_REVISION, MAXDWORD, ace, ace->AceSize)) r = werr_set(e, "restore", "AddAce", GetLastError());
  }
  if (r == 0) r = set_dacl(h, path, acl, sd, "SetSecurityInfo(DACL)", e);
  LocalFree(acl);
  LocalFree(sd);
  CloseHandle(h);
  return r;
}

/* ---------- labels ---------- */

static int set_label(const WCHAR *path, const WCHAR *sddl, const char *step, struct werr *e) {
  PSECURITY_DESCRIPTOR sd = NULL;
  PACL sacl = NULL, empty = NULL;
  BOOL present = FALSE, defaulted = FALSE;
  BYTE none[sizeof(ACL)];
  if (*sddl) {
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
      return werr_set(e, step, "ConvertStringSecurityDescriptorToSecurityDescriptorW", GetLastError());
    GetSecurityDescriptorSacl(sd, &present, &sacl, &defaulted);
  } else if (InitializeAcl((PACL)none, sizeof none, ACL_REVISION)) {
    empty = (PACL)none; /* no label ACE: the object is back to the default (medium, no-write-up) */
  }
  HANDLE h = open_object(path, step, e);
  DWORD rc = h ? SetSecurityInfo(h, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION, NULL, NULL, NULL, sacl ? sacl : empty) : ERROR_SUCCESS;
  LocalFree(sd);
  if (!h) return -1;
  CloseHandle(h);
  if (rc != ERROR_SUCCESS) return werr_set(e, step, "SetSecurityInfo(LABEL)", rc), werr_detail(e, path);
  return 0;
}

/* The object's own label as SDDL ("" when it has none, or only an inherited one). */
static WCHAR *label_of(const WCHAR *path, struct werr *e) {
  PSECURITY_DESCRIPTOR sd = NULL;
  WCHAR *s = NULL;
  HANDLE h = open_object(path, "acl", e);
  if (!h) return NULL;
  DWORD rc = GetSecurityInfo(h, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION, NULL, NULL, NULL, NULL, &sd);
  CloseHandle(h);
  if (rc != ERROR_SUCCESS) { werr_set(e, "acl", "GetSecurityInfo(LABEL)", rc); werr_detail(e, path); return NULL; }
  if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(sd, SDDL_REVISION_1, LABEL_SECURITY_INFORMATION, &s, NULL)) s = NULL;
  LocalFree(sd);
  WCHAR *copy = _wcsdup(s && !wcsstr(s, L"ID;") ? s : L"");
  LocalFree(s);
  return copy;
}

static int relabel(struct journal *j, const WCHAR *path, const WCHAR *label, struct werr *e) {
  WCHAR *was = label_of(path, e);
  int r = !was ? -1 : journal_line(j, L"L", path, was, e) ? -1 : set_label(path, label, "acl", e);
  free(was);
  return r;
}

/* ---------- apply, restore, sweep ---------- */

static int grant(struct journal *j, const WCHAR *path, PSID sid, ACCESS_MODE mode, DWORD rights, DWORD inherit, struct werr *e) {
  if (journal_line(j, L"A", path, NULL, e)) return -1;
  return add_ace(path, sid, mode, rights, inherit, e);
}

static int apply_all(struct journal *j, const struct wplan *p, PSID sid, struct werr *e) {
  if (journal_line(j, L"S", p->sid, NULL, e)) return -1;
  for (size_t i = 0; i < p->allow.len; i++) {
    if (grant(j, p->allow.items[i], sid, GRANT_ACCESS, WRITE_RIGHTS, SUB_CONTAINERS_AND_OBJECTS_INHERIT, e)) return -1;
    if (p->low_integrity && relabel(j, p->allow.items[i], LOW_LABEL, e)) return -1;
  }
  for (size_t i = 0; i < p->deny.len; i++)
    if (grant(j, p->deny.items[i], sid, DENY_ACCESS, DENY_RIGHTS, SUB_CONTAINERS_AND_OBJECTS_INHERIT, e)) return -1;
  for (size_t i = 0; i < p->guard.len; i++)
    if (grant(j, p->guard.items[i], sid, DENY_ACCESS, DELETE, NO_INHERITANCE, e)) return -1;
  for (size_t i = 0; p->low_integrity && i < p->noreadup.len; i++)
    if (relabel(j, p->noreadup.items[i], NO_READ_UP_LABEL, e)) return -1;
  return 0;
}

struct journal *acl_apply(const struct wplan *p, PSID sid, struct werr *e) {
  struct journal *j = journal_open(p->journal, p->sid, e);
  if (j && apply_all(j, p, sid, e)) {
    struct werr ignored;
    acl_restore(j, sid, &ignored); /* undo what was done; the launch fails with the first error */
    return NULL;
  }
  return j;
}

/* The journal's lines, last first, undone one by one; the SID comes from its first line. */
static int undo_text(char *text, PSID sid, struct werr *e) {
  int failed = 0;
  for (char *end = text + strlen(text); end > text;) {
    char *start = end - 1;
    while (start > text && start[-1] != '\n') start--;
    *end = 0;
    if (end > start && end[-1] == '\n') end[-1] = 0;
    WCHAR *w = utf8_to_wide(start, strlen(start));
    WCHAR *path = w ? wcschr(w, L'\t') : NULL, *extra = path ? wcschr(path + 1, L'\t') : NULL;
    if (path && extra) {
      *extra++ = 0;
      path++;
      if (w[0] == L'A' && remove_aces(path, sid, e)) failed = 1;
      if (w[0] == L'L' && set_label(path, extra, "restore", e)) failed = 1;
    }
    free(w);
    end = start;
  }
  return failed ? -1 : 0;
}

static char *read_journal(HANDLE f) {
  LARGE_INTEGER size;
  if (!GetFileSizeEx(f, &size) || size.QuadPart > (64 << 20)) return NULL;
  char *text = calloc((size_t)size.QuadPart + 1, 1);
  DWORD got = 0;
  SetFilePointer(f, 0, NULL, FILE_BEGIN);
  if (text && size.QuadPart && !ReadFile(f, text, (DWORD)size.QuadPart, &got, NULL)) { free(text); return NULL; }
  return text;
}

/* Undo the journal in `f`; delete it when everything was undone. */
static int undo_journal(HANDLE f, const WCHAR *path, PSID sid, struct werr *e) {
  char *text = read_journal(f);
  if (!text) {
    werr_set(e, "restore", "ReadFile(journal)", GetLastError());
    CloseHandle(f);
    return -1;
  }
  int r = undo_text(text, sid, e);
  free(text);
  CloseHandle(f);
  if (r == 0) DeleteFileW(path); /* kept on failure: the next sweep tries again */
  return r;
}

int acl_restore(struct journal *j, PSID sid, struct werr *e) {
  int r = undo_journal(j->file, j->path, sid, e);
  free(j);
  return r;
}

/* A stale journal's SID: the file is named after it. */
static PSID sid_from_name(const WCHAR *name) {
  WCHAR s[256];
  PSID sid = NULL;
  wcsncpy(s, name, 255);
  s[255] = 0;
  WCHAR *dot = wcsrchr(s, L'.');
  if (dot) *dot = 0;
  return ConvertStringSidToSidW(s, &sid) ? sid : NULL;
}

int acl_sweep(const WCHAR *dir) {
  WCHAR pattern[MAX_PATH + 16], path[MAX_PATH + 300];
  WIN32_FIND_DATAW fd;
  int swept = 0;
  _snwprintf(pattern, sizeof pattern / sizeof *pattern - 1, L"%ls\\*.acl", dir);
  pattern[sizeof pattern / sizeof *pattern - 1] = 0;
  HANDLE find = FindFirstFileW(pattern, &fd);
  if (find == INVALID_HANDLE_VALUE) return 0;
  do {
    _snwprintf(path, sizeof path / sizeof *path - 1, L"%ls\\%ls", dir, fd.cFileName);
    path[sizeof path / sizeof *path - 1] = 0;
    /* Opens only when no launcher holds it: its owner died before restoring. */
    HANDLE f = CreateFileW(path, GENERIC_READ, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    PSID sid = f != INVALID_HANDLE_VALUE ? sid_from_name(fd.cFileName) : NULL;
    struct werr ignored;
    if (sid && undo_journal(f, path, sid, &ignored) == 0) swept++;
    if (f != INVALID_HANDLE_VALUE && !sid) CloseHandle(f);
    LocalFree(sid);
  } while (FindNextFileW(find, &fd));
  FindClose(find);
  return swept;
}
