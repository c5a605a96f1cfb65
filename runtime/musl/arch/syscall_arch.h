/* psychic's musl arch, x86_64's types with no assembly: every system call
 * is a call of __psychic_syscall, which the libc model implements over the
 * symbolic environment (runtime/symbolic/syscall.c). */
#define __SYSCALL_LL_E(x) (x)
#define __SYSCALL_LL_O(x) (x)

long __psychic_syscall(long, long, long, long, long, long, long);

static __inline long __syscall0(long n) { return __psychic_syscall(n, 0, 0, 0, 0, 0, 0); }
static __inline long __syscall1(long n, long a) { return __psychic_syscall(n, a, 0, 0, 0, 0, 0); }
static __inline long __syscall2(long n, long a, long b) { return __psychic_syscall(n, a, b, 0, 0, 0, 0); }
static __inline long __syscall3(long n, long a, long b, long c) {
	return __psychic_syscall(n, a, b, c, 0, 0, 0);
}
static __inline long __syscall4(long n, long a, long b, long c, long d) {
	return __psychic_syscall(n, a, b, c, d, 0, 0);
}
static __inline long __syscall5(long n, long a, long b, long c, long d, long e) {
	return __psychic_syscall(n, a, b, c, d, e, 0);
}
static __inline long __syscall6(long n, long a, long b, long c, long d, long e, long f) {
	return __psychic_syscall(n, a, b, c, d, e, f);
}

/* No vDSO: clock_gettime and friends reach __psychic_syscall too. */
#define IPC_64 0
