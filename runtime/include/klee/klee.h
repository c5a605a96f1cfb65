/* klee/klee.h - psychic's KLEE-compatible intrinsics.
 *
 * API-compatible with KLEE's header for the calls psychic supports, so that a
 * program written for KLEE builds unmodified. Under `psychic run` the engine
 * implements every call; natively, psychic's runtime replays inputs from the
 * .ktest file named by KTEST_FILE, as KLEE's libkleeRuntest does.
 */
#ifndef KLEE_H
#define KLEE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Make the NBYTES bytes at ADDR symbolic (the whole object). NAME names the
 * object in tests; NULL means "unnamed". */
void klee_make_symbolic(void *addr, size_t nbytes, const char *name);

/* A symbolic int in the signed interval [begin, end). */
int klee_range(int begin, int end, const char *name);

/* An unconstrained symbolic int. */
int klee_int(const char *name);

/* Constrain the current path: a path on which CONDITION is false does not
 * exist. Natively, an input that violates it ends the run with status 120. */
void klee_assume(uintptr_t condition);

/* End the path without a test. */
__attribute__((noreturn)) void klee_silent_exit(int status);

/* End the path as an error ("abort"). */
__attribute__((noreturn)) void klee_abort(void);

/* End the path as a user-defined error; SUFFIX names the .err file kind. */
__attribute__((noreturn)) void klee_report_error(const char *file, int line,
                                                 const char *message,
                                                 const char *suffix);

/* Whether N is symbolic on the current path (always 0 natively). */
unsigned klee_is_symbolic(uintptr_t n);

/* 1 when replaying natively, 0 under symbolic execution. */
unsigned klee_is_replay(void);

/* Does nothing natively; a hint to prefer CONDITION in generated tests. */
void klee_prefer_cex(void *object, uintptr_t condition);

void klee_warning(const char *message);
void klee_warning_once(const char *message);

/* One feasible value of EXPR; the path is constrained to it. */
#define KLEE_GET_VALUE_PROTO(suffix, type) type klee_get_value##suffix(type expr)
KLEE_GET_VALUE_PROTO(f, float);
KLEE_GET_VALUE_PROTO(d, double);
KLEE_GET_VALUE_PROTO(l, long);
KLEE_GET_VALUE_PROTO(ll, long long);
KLEE_GET_VALUE_PROTO(_i32, int32_t);
KLEE_GET_VALUE_PROTO(_i64, int64_t);
#undef KLEE_GET_VALUE_PROTO

/* The revision that executes meta-branch SITE of a meta program (see
 * `psychic unify`). Natively it is $PSYCHIC_REVISION (default 0); the engine
 * splits the path's revision set instead of forking on a symbolic value. */
int __klee_meta(int site);

/* Whether the revision that executes meta-branch SITE is in REVISIONS, a
 * set written in hex digits, four revisions to a digit: revision r is bit
 * r % 4 of digit r / 4 ("6" is revisions 1 and 2). `psychic unify` tests
 * long sets so, in one call, where `__klee_meta(S) == r || ...` would make
 * one per revision. */
int __klee_meta_in(int site, const char *revisions);

/* A meta program defines the number of its revisions, 0 to N-1:
 *   const int __psychic_revisions = N;
 * The engine starts every path with all of them. */

/* Declared here because klee_assert expands to it; KLEE treats it as a
 * special function, psychic too. */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function) __attribute__((noreturn));

/* An assertion whose failure is reported the same way on every platform. */
#define klee_assert(expr)                                                      \
  ((expr) ? (void)(0) : __assert_fail(#expr, __FILE__, __LINE__, __func__))

#ifdef __cplusplus
}
#endif

#endif /* KLEE_H */
