/* What musl's members expect from its startup code and its stdio, which
 * psychic does not link: compiled with musl's internal headers as one more
 * member of the archive (src/compile/musl.rs). */
#define _GNU_SOURCE /* strchrnul */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "libc.h"
#include "lock.h"
#include "pthread_impl.h"
#include "stdio_impl.h"
#include "syscall.h"

/* The one thread's area, set up statically since __libc_start_main never
 * runs: locale functions read the C locale through it. */
static struct pthread thread = {
	.self = &thread,
	.tid = 1,
	.locale = &libc.global_locale,
};

uintptr_t __psychic_tp(void) { return (uintptr_t)&thread; }

/* No thread is ever cancelled: a cancellation point is a plain call. */
long (__syscall_cp)(syscall_arg_t n, syscall_arg_t a, syscall_arg_t b, syscall_arg_t c,
                    syscall_arg_t d, syscall_arg_t e, syscall_arg_t f)
{
	return __psychic_syscall(n, a, b, c, d, e, f);
}

/* The streams are the libc model's (glibc's layout), which the engine
 * writes by address: musl's stdio is never linked, only its lock is asked
 * for, and one thread needs none. */
int __lockfile(FILE *f)
{
	(void)f;
	return 0;
}

void __unlockfile(FILE *f) { (void)f; }

/* One thread: musl's internal locks (time zones, ...) guard nothing. */
void __lock(volatile int *l) { (void)l; }

void __unlock(volatile int *l) { (void)l; }

/* The model's getenv finds no variable: the environment is empty, not
 * absent (musl's own __environ starts as a null pointer, which its startup
 * code would set). */
static char *no_variables[1];
char **__environ = no_variables;
weak_alias(__environ, ___environ);
weak_alias(__environ, _environ);
weak_alias(__environ, environ);

/* errno is the libc model's, which the engine and the program share:
 * musl's members reach it through their internal name. */
int *___errno_location(void) { return __errno_location(); }

/* The heap is the engine's, under musl's internal names too. */
void *__libc_malloc(size_t n) { return malloc(n); }

void *__libc_calloc(size_t m, size_t n) { return calloc(m, n); }

void *__libc_realloc(void *p, size_t n) { return realloc(p, n); }

void __libc_free(void *p) { free(p); }

/* The model's strchrnul, under the name musl's members call: musl's own
 * comes with a definition of strchrnul, which the model's must keep. */
char *__strchrnul(const char *s, int c) { return strchrnul(s, c); }

/* The engine delivers no signal and cancels no thread: there is nothing
 * to block or to defer. */
void __block_all_sigs(void *set) { (void)set; }

void __block_app_sigs(void *set) { (void)set; }

void __restore_sigs(void *set) { (void)set; }

int pthread_setcancelstate(int state, int *old)
{
	(void)state;
	if (old) *old = PTHREAD_CANCEL_ENABLE;
	return 0;
}
