/* Mutual recursion: is_even and is_odd on a symbolic n < 8.
 *
 * Paths: each call tests n == 0, so every n stops at its own depth: 8.
 * expect: exit=8
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n < 8);
  puts(is_even(n) ? "even" : "odd");
  return 0;
}
