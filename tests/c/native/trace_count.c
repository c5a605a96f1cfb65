/* Ground truth for path counts: runs `match` of tests/c/symbolic/regexp.c
 * (compiled with -fsanitize-coverage=trace-pc-guard) on every pattern of
 * SIZE-1 bytes and counts the distinct basic-block traces; each is one
 * path a symbolic executor must find. */
#include <stdint.h>
#include <stdio.h>

#define SIZE 4

int match(char *re, char *text);
void klee_make_symbolic(void *addr, unsigned long n, const char *name) {
  (void)addr, (void)n, (void)name;
}

static uint64_t trace;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  static uint32_t n;
  for (uint32_t *g = start; g < stop; g++) *g = ++n;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { trace = (trace ^ *guard) * 1099511628211ull; }

#define SLOTS (1u << 20)
static uint64_t seen[SLOTS];

int main(void) {
  unsigned distinct = 0;
  for (uint32_t v = 0; v < (1u << (8 * (SIZE - 1))); v++) {
    char re[SIZE];
    for (int i = 0; i < SIZE - 1; i++) re[i] = (char)(v >> (8 * i));
    re[SIZE - 1] = '\0';
    trace = 1469598103934665603ull;
    int r = match(re, "hello");
    uint64_t key = (trace ^ (uint64_t)r) | 1;
    uint32_t slot = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 44);
    while (seen[slot] && seen[slot] != key) slot = (slot + 1) & (SLOTS - 1);
    if (!seen[slot]) {
      seen[slot] = key;
      distinct++;
    }
  }
  printf("%u\n", distinct);
  return 0;
}
