/* The thread pointer is the one static thread area of glue.c: the engine
 * runs one thread and never starts musl's own startup code. */
uintptr_t __psychic_tp(void);
static inline uintptr_t __get_tp() { return __psychic_tp(); }

#define MC_PC gregs[REG_RIP]
