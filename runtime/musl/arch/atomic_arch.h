/* The engine runs one thread: atomics are plain loads and stores, without
 * the x86 instructions (inline assembly) musl's own arch uses. */
#define a_cas a_cas
static inline int a_cas(volatile int *p, int t, int s)
{
	int old = *p;
	if (old == t) *p = s;
	return old;
}

#define a_cas_p a_cas_p
static inline void *a_cas_p(volatile void *p, void *t, void *s)
{
	void *old = *(void *volatile *)p;
	if (old == t) *(void *volatile *)p = s;
	return old;
}

#define a_swap a_swap
static inline int a_swap(volatile int *p, int v)
{
	int old = *p;
	*p = v;
	return old;
}

#define a_fetch_add a_fetch_add
static inline int a_fetch_add(volatile int *p, int v)
{
	int old = *p;
	*p = old + v;
	return old;
}

#define a_store a_store
static inline void a_store(volatile int *p, int x) { *p = x; }

#define a_barrier a_barrier
static inline void a_barrier() {}

#define a_crash a_crash
static inline void a_crash() { __builtin_trap(); }
