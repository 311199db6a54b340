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
 * Crash safety (journal.c): every change is written to a journal and
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

#define WRITE_RIGHTS (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
#define DENY_RIGHTS (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER | FILE_DELETE_CHILD)
#define LOW_LABEL L"S:(ML;OICI;NW;;;LW)"
#define NO_READ_UP_LABEL L"S:(ML;OICI;NWNR;;;ME)"

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
int acl_remove_aces(const WCHAR *path, PSID sid, struct werr *e) {
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

int acl_set_label(const WCHAR *path, const WCHAR *sddl, const char *step, struct werr *e) {
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
  int r = !was ? -1 : journal_line(j, L"L", path, was, e) ? -1 : acl_set_label(path, label, "acl", e);
  free(was);
  return r;
}

/* ---------- apply ---------- */

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

