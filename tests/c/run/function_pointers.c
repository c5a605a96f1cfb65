/* Calls through a table of function pointers at a symbolic index.
 *
 * Paths: the loaded pointer may be each of the 4 functions: the call forks
 * once per target (4); max() decides its branch on concrete arguments.
 * expect: exit=4
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int max(int a, int b) { return a > b ? a : b; }

static int (*const ops[4])(int, int) = {add, sub, mul, max};

int main(void) {
  unsigned char op;
  klee_make_symbolic(&op, sizeof op, "op");
  int r = ops[op & 3](7, 3);
  printf("%d\n", r);
  return r;
}
