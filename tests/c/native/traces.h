/* Shared by the native path counters: the guards of trace-pc-guard
 * coverage folded into a trace hash, and a set of the distinct keys seen. */
#ifndef TRACES_H
#define TRACES_H

#include <stdint.h>

#define TRACE_START 1469598103934665603ull

static uint64_t trace_step(uint64_t trace, uint32_t guard) { return (trace ^ guard) * 1099511628211ull; }

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  static uint32_t n;
  for (uint32_t *g = start; g < stop; g++) *g = ++n;
}

#define SLOTS (1u << 20)
static uint64_t seen[SLOTS];

/* Adds a key to the set; 1 if it is new. */
static int insert_key(uint64_t key) {
  key |= 1; /* 0 marks a free slot */
  uint32_t slot = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 44);
  while (seen[slot] && seen[slot] != key) slot = (slot + 1) & (SLOTS - 1);
  if (seen[slot]) return 0;
  seen[slot] = key;
  return 1;
}

#endif
