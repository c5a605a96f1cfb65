/* A query Z3 cannot answer in a fraction of a second (a product and a
 * quotient of 64-bit inputs), on one path among easy ones: with a short
 * --max-solver-time it ends only that path, with a `solver` error. */
#include <klee/klee.h>
#include <stdint.h>

int main(void) {
  uint64_t a, b;
  int c;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  klee_make_symbolic(&c, sizeof c, "c");
  if (c == 1) {
    if (a * b == 0x9e3779b97f4a7c15ull && a > 3 && b > 3 && a * a / b == 0x1234567ull)
      return 2;
    return 3;
  }
  return 0;
}
