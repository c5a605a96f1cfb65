/* Ground truth for path counts: runs `match` of tests/c/symbolic/regexp.c
 * (compiled with -fsanitize-coverage=trace-pc-guard) on every pattern of
 * SIZE-1 bytes and counts the distinct basic-block traces; each is one
 * path a symbolic executor must find. */
#include <stdint.h>
#include <stdio.h>

#include "traces.h"

#define SIZE 4

int match(char *re, char *text);
void klee_make_symbolic(void *addr, unsigned long n, const char *name) {
  (void)addr, (void)n, (void)name;
}

static uint64_t trace;

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { trace = trace_step(trace, *guard); }

int main(void) {
  unsigned distinct = 0;
  for (uint32_t v = 0; v < (1u << (8 * (SIZE - 1))); v++) {
    char re[SIZE];
    for (int i = 0; i < SIZE - 1; i++) re[i] = (char)(v >> (8 * i));
    re[SIZE - 1] = '\0';
    trace = TRACE_START;
    int r = match(re, "hello");
    distinct += insert_key(trace ^ (uint64_t)r);
  }
  printf("%u\n", distinct);
  return 0;
}
